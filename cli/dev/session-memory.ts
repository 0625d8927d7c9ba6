/**
 * What `mcp-gen dev` remembers of its client's session, so that a new server process can be
 * brought to the state the client believes it is talking to.
 *
 * A 2025-era client (2024-11-05 .. 2025-11-25) opened its session with `initialize` and
 * `notifications/initialized`; the server then keeps per-session state: the log level
 * (`logging/setLevel`) and resource subscriptions (`resources/subscribe`). A 2026-07-28
 * client sends every request with its own `_meta` and keeps no session, except for its
 * open `subscriptions/listen` streams. Both are replayed to each new server process.
 *
 * What is not carried over: anything else a server keeps in memory (its own caches, a
 * task store in memory, a legacy tool's input round in progress), and server-to-client
 * requests in flight (their answers are dropped: the process that asked is gone).
 */

export type RequestId = string | number;
export type JsonObject = Record<string, unknown>;

/** The list-changed notifications, each with the capability that announces it and its listen filter key. */
export const LIST_KINDS = [
  { group: "tools", filterKey: "toolsListChanged", method: "notifications/tools/list_changed" },
  { group: "resources", filterKey: "resourcesListChanged", method: "notifications/resources/list_changed" },
  { group: "prompts", filterKey: "promptsListChanged", method: "notifications/prompts/list_changed" },
] as const;

export const SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId";
export const LISTEN_METHOD = "subscriptions/listen";
export const ACK_METHOD = "notifications/subscriptions/acknowledged";

/** One open `subscriptions/listen` stream of the client. */
export interface ListenStream {
  /** The request as the client sent it: sent again, with the same id, to each new server. */
  readonly line: string;
  /** What the first server agreed to honor (its acknowledgement); undefined until then. */
  honored: JsonObject | undefined;
}

export class SessionMemory {
  /** The params of the client's `initialize`, for a 2025-era session. */
  initializeParams: JsonObject | undefined;
  /** The capabilities the client was answered with: what it knows the server announces. */
  serverCapabilities: JsonObject = {};
  initialized = false;
  /** Session-state requests to send again, keyed by what they set (the level, one URI). */
  readonly #stateRequests = new Map<string, { method: string; params: unknown }>();
  /** Open listen streams, by the JSON of their request id. */
  readonly listens = new Map<string, ListenStream>();

  /** Records a session-state request the server accepted. */
  accepted(method: string, params: unknown): void {
    const uri = isObject(params) ? params["uri"] : undefined;
    if (method === "logging/setLevel") this.#stateRequests.set(method, { method, params });
    else if (method === "resources/subscribe") this.#stateRequests.set(`resource ${String(uri)}`, { method, params });
    else if (method === "resources/unsubscribe") this.#stateRequests.delete(`resource ${String(uri)}`);
  }

  /** The requests that rebuild the session on a new server, after `initialize`. */
  stateRequests(): Array<{ method: string; params: unknown }> {
    return [...this.#stateRequests.values()];
  }

  /**
   * The notifications that tell the client its lists may have changed: for a 2025-era
   * session those its server announced with `listChanged`; for each open listen stream the
   * kinds its acknowledgement honored, stamped with the stream's id.
   */
  listChangedNotifications(): JsonObject[] {
    const notifications: JsonObject[] = [];
    if (this.initializeParams !== undefined) {
      for (const kind of LIST_KINDS) {
        const group = this.serverCapabilities[kind.group];
        if (isObject(group) && group["listChanged"] === true) notifications.push({ jsonrpc: "2.0", method: kind.method });
      }
    }
    for (const [idJson, stream] of this.listens) {
      for (const kind of LIST_KINDS) {
        if (stream.honored?.[kind.filterKey] !== true) continue;
        notifications.push({ jsonrpc: "2.0", method: kind.method, params: { _meta: { [SUBSCRIPTION_ID_KEY]: JSON.parse(idJson) as RequestId } } });
      }
    }
    return notifications;
  }
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

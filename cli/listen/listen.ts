/**
 * `mcp-gen listen`: watch a server live. Connects over HTTP or stdio, asks
 * `server/discover` what the server advertises, opens one `subscriptions/listen` stream
 * with the requested filter, and reports the ack (with anything not honored), every
 * notification as it arrives, and how the stream ended. A server that does not speak
 * 2026-07-28 (or `legacy: true`) gets a 2025-11-25 session instead (legacy.ts). Events go
 * to a callback as data; `format.ts` turns them into lines.
 */
import {
  HttpClientTransport,
  META_KEYS,
  PROTOCOL_VERSION,
  refusesDiscover,
  SUBSCRIPTION_KINDS,
  StdioClientTransport,
  type JsonRpcNotification,
  type JsonRpcResponse,
  type SubscriptionFilter,
  type SubscriptionFilterKey,
  type Transport,
} from "../../generated/index.js";
import { CliError } from "../errors.js";
import { httpLink, listenLegacy, stdioLink } from "./legacy.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "./legacy-http.js";
import { RpcClient, type RequestOutcome } from "./rpc.js";

export type ListenTarget =
  { readonly url: string; readonly headers?: Readonly<Record<string, string>> } | { readonly command: string; readonly args: readonly string[] };

export interface ListenOptions {
  readonly target: ListenTarget;
  /** What to ask for; undefined asks for every kind the server advertises. */
  readonly filter?: SubscriptionFilter;
  /** Stop (close the stream) after this many notifications. */
  readonly maxNotifications?: number;
  /** Stop (close the stream) when this signal aborts, e.g. on Ctrl-C. */
  readonly signal?: AbortSignal;
  /** Open a 2025-11-25 session (initialize, then the GET stream) without asking server/discover first. */
  readonly legacy?: boolean;
  /** The largest answer or event accepted from the server. Default 16 MiB. */
  readonly maxMessageBytes?: number;
}

export interface Discovered {
  readonly supportedVersions: readonly string[];
  readonly capabilities: Record<string, unknown>;
  readonly serverInfo?: { name?: string; version?: string };
}

export type ListenEvent =
  | { readonly kind: "discovered"; readonly discovered: Discovered }
  | { readonly kind: "legacy"; readonly reason: string }
  | { readonly kind: "listening"; readonly filter: SubscriptionFilter; readonly defaulted: boolean }
  | { readonly kind: "ack"; readonly honored: SubscriptionFilter; readonly notHonored: readonly string[] }
  | { readonly kind: "notification"; readonly notification: JsonRpcNotification }
  | { readonly kind: "ended"; readonly how: "complete" | "stopped"; readonly subscriptionId?: unknown };

/** Runs one listen session; resolves when the stream ended as expected, throws CliError otherwise. */
export async function listen(options: ListenOptions, onEvent: (event: ListenEvent) => void): Promise<void> {
  const { target } = options;
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (options.legacy && "url" in target) {
    onEvent({ kind: "legacy", reason: "asked for with --legacy" });
    return listenLegacy(httpLink(target.url, target.headers, maxMessageBytes), options, onEvent);
  }
  const transport = makeTransport(target, maxMessageBytes);
  const where = "url" in target ? target.url : [target.command, ...target.args].join(" ");
  try {
    await transport.connect();
  } catch (error) {
    throw new CliError(`could not start the server \`${where}\`: ${messageOf(error)}`, { hint: "check the command after --" });
  }
  if (options.legacy) {
    onEvent({ kind: "legacy", reason: "asked for with --legacy" });
    return listenLegacy(stdioLink(transport, where), options, onEvent);
  }
  const rpc = new RpcClient(transport);
  let handedOver = false;
  try {
    const outcome = await rpc.request("server/discover");
    const notModern = legacyHint(outcome);
    if (notModern !== undefined) {
      onEvent({ kind: "legacy", reason: notModern });
      if ("url" in target) {
        await transport.close().catch(() => {});
        return await listenLegacy(httpLink(target.url, target.headers, maxMessageBytes), options, onEvent);
      }
      handedOver = true; // the legacy session closes the transport
      return await listenLegacy(stdioLink(transport, where), options, onEvent);
    }
    const discovered = parseDiscover(outcome, where);
    onEvent({ kind: "discovered", discovered });
    const defaulted = options.filter === undefined;
    const filter = options.filter ?? advertisedFilter(discovered.capabilities);
    if (Object.keys(filter).length === 0) {
      throw new CliError("the server advertises no notification a listen stream could carry", {
        hint: "ask explicitly with --tools, --prompts, --resources or --resource URI",
      });
    }
    onEvent({ kind: "listening", filter, defaulted });
    await streamUntilEnd(rpc, filter, options, onEvent);
  } finally {
    if (!handedOver) await transport.close().catch(() => {});
  }
}

/**
 * Why a server/discover answer says the server does not speak 2026-07-28, if it does:
 * "method not found", or (over HTTP) a 400/404/405 refusal such as a 2025-11-25 server's
 * "no session" answer (the runtime client's rule, refusal.ts). Undefined when it is a
 * 2026-07-28 answer, or a failure of another kind (401/403, a 5xx, the network).
 */
function legacyHint(outcome: RequestOutcome): string | undefined {
  const error = outcome.kind === "response" && "error" in outcome.response ? outcome.response.error : undefined;
  if (outcome.kind === "response" && error === undefined) return undefined;
  if (!refusesDiscover({ status: outcome.httpStatus, error })) return undefined;
  if (outcome.httpStatus !== undefined) return `server/discover got HTTP ${outcome.httpStatus}`;
  return error?.code === METHOD_NOT_FOUND ? "server/discover is not a method there" : `server/discover was refused (code ${error?.code})`;
}

function makeTransport(target: ListenTarget, maxMessageBytes: number): Transport {
  if ("url" in target) return new HttpClientTransport(target.url, { headers: target.headers, maxMessageBytes });
  return new StdioClientTransport({ command: target.command, args: target.args, stderr: "inherit", maxLineLength: maxMessageBytes });
}

async function streamUntilEnd(rpc: RpcClient, filter: SubscriptionFilter, options: ListenOptions, onEvent: (e: ListenEvent) => void): Promise<void> {
  const listenId = rpc.nextId;
  let acked = false;
  let count = 0;
  let stopping = false;
  let nothingHonored = false;
  let stopped!: () => void;
  // Over stdio a cancelled stream gets no answer at all, so stopping ends the wait itself.
  const whenStopped = new Promise<RequestOutcome>((resolve) => (stopped = () => resolve({ kind: "closed", reason: "stopped" })));
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void rpc.cancel(listenId).then(stopped);
  };
  rpc.onNotification((notification) => {
    if (stopping) return;
    if (!acked && notification.method === "notifications/subscriptions/acknowledged") {
      acked = true;
      const honored = ((notification.params as { notifications?: SubscriptionFilter } | undefined)?.notifications ?? {}) as SubscriptionFilter;
      onEvent({ kind: "ack", honored, notHonored: notHonored(filter, honored) });
      if (Object.keys(honored).length === 0) {
        nothingHonored = true;
        stop(); // an empty stream would wait forever for nothing
      }
      return;
    }
    onEvent({ kind: "notification", notification });
    if (options.maxNotifications !== undefined && ++count >= options.maxNotifications) stop();
  });
  options.signal?.addEventListener("abort", stop, { once: true });
  if (options.signal?.aborted) stop();
  const outcome = await Promise.race([rpc.request("subscriptions/listen", { notifications: filter }), whenStopped]);
  options.signal?.removeEventListener("abort", stop);
  if (nothingHonored) {
    throw new CliError("the server honored none of the requested notifications, so nothing could arrive; the stream was closed", {
      hint: "ask for what the server advertises (see above), or run without a filter option",
    });
  }
  reportEnd(outcome, stopping, onEvent);
}

function reportEnd(outcome: RequestOutcome, stopping: boolean, onEvent: (e: ListenEvent) => void): void {
  if (outcome.kind === "closed") {
    if (stopping) return onEvent({ kind: "ended", how: "stopped" });
    throw new CliError(`the listen stream closed abruptly, without a complete result (${outcome.reason})`);
  }
  const response = outcome.response;
  if ("error" in response) {
    throw new CliError(`the server refused the listen stream: ${response.error.message} (code ${response.error.code})`, {
      hint: "compare the filter with what the server advertises above",
    });
  }
  const meta = (response.result as { _meta?: Record<string, unknown> })._meta;
  onEvent({ kind: "ended", how: stopping ? "stopped" : "complete", subscriptionId: meta?.[META_KEYS.subscriptionId] });
}

function parseDiscover(outcome: RequestOutcome, where: string): Discovered {
  if (outcome.kind === "closed") {
    throw new CliError(`could not reach the server at ${where}: ${outcome.reason}`, { hint: "is it running, and is this its MCP endpoint?" });
  }
  const response: JsonRpcResponse = outcome.response;
  if ("error" in response) {
    throw new CliError(`server/discover failed: ${response.error.message} (code ${response.error.code})`, {
      hint: `the server may not speak MCP ${PROTOCOL_VERSION}`,
    });
  }
  const result = response.result as { supportedVersions?: string[]; capabilities?: Record<string, unknown>; _meta?: Record<string, unknown> };
  const serverInfo = result._meta?.[META_KEYS.serverInfo] as Discovered["serverInfo"];
  return { supportedVersions: result.supportedVersions ?? [], capabilities: result.capabilities ?? {}, serverInfo };
}

/** Every boolean kind whose ServerCapabilities flag is set (a URI list cannot be guessed). */
export function advertisedFilter(capabilities: Record<string, unknown>): SubscriptionFilter {
  const filter: Record<string, boolean> = {};
  for (const kind of Object.values(SUBSCRIPTION_KINDS)) {
    if (kind.value !== "boolean" || kind.serverCapability === null) continue;
    const [group, flag] = kind.serverCapability;
    if ((capabilities[group] as Record<string, unknown> | undefined)?.[flag] === true) filter[kind.filterKey] = true;
  }
  return filter as SubscriptionFilter;
}

/** What was asked for and is missing from the ack: a kind name, or `resourceSubscriptions <uri>`. */
export function notHonored(requested: SubscriptionFilter, honored: SubscriptionFilter): string[] {
  const missing: string[] = [];
  for (const key of Object.keys(requested).sort() as SubscriptionFilterKey[]) {
    const asked = requested[key];
    const got = honored[key];
    if (asked === true && got !== true) missing.push(key);
    if (Array.isArray(asked)) {
      const gotUris = new Set(Array.isArray(got) ? got : []);
      for (const uri of asked) if (!gotUris.has(uri)) missing.push(`${key} ${uri}`);
    }
  }
  return missing;
}

const METHOD_NOT_FOUND = -32601;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

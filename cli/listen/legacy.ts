/**
 * `mcp-gen listen` against a server that speaks only 2025-11-25 (or when asked with
 * `--legacy`): `initialize`, `notifications/initialized`, `resources/subscribe` for each
 * `--resource`, then every notification the session receives (over HTTP on its GET
 * stream), until the count or Ctrl-C; the session is then ended (HTTP DELETE, stdio EOF).
 * A legacy session cannot narrow its list changes, so the filter is applied here: only
 * what was asked for is printed and counted.
 */
import {
  LEGACY_VERSION,
  SUBSCRIPTION_KINDS,
  type JsonRpcNotification,
  type SubscriptionFilter,
  type SubscriptionFilterKey,
  type Transport,
} from "../../generated/index.js";
import { CliError } from "../errors.js";
import { LegacyHttpSession } from "./legacy-http.js";
import { advertisedFilter, notHonored, type ListenEvent, type ListenOptions } from "./listen.js";
import { CLIENT_INFO, RpcClient, type RequestOutcome } from "./rpc.js";

/**
 * The revision a legacy session asks for: the one this package's generated facts answer
 * `initialize` clients with. Undefined only in a build whose revision list has none.
 */
export const LEGACY_PROTOCOL_VERSION = LEGACY_VERSION;

/** What the legacy flow needs of a connection: requests, one notification, watching, the end. */
interface LegacyLink {
  readonly where: string;
  request(method: string, params?: Record<string, unknown>): Promise<RequestOutcome>;
  notify(method: string): Promise<void>;
  /** Delivers the session's notifications until `signal` aborts or the session goes; `onOpen` once they can arrive. */
  watch(
    onNotification: (notification: JsonRpcNotification) => void,
    signal: AbortSignal,
    onOpen: () => void,
  ): Promise<{ how: "stopped" } | { how: "gone"; reason: string }>;
  close(): Promise<void>;
}

/** A legacy session over Streamable HTTP, on its own connection. */
export function httpLink(url: string, headers: Readonly<Record<string, string>> | undefined, maxMessageBytes: number): LegacyLink {
  const session = new LegacyHttpSession(url, { headers, maxMessageBytes });
  return {
    where: url,
    request: (method, params) => session.request(method, params),
    notify: (method) => session.notify(method),
    watch: (onNotification, signal, onOpen) => session.watch(onNotification, signal, onOpen),
    close: () => session.close(),
  };
}

/** A legacy session on a stdio server's pipe (the process chooses its era by the first request). */
export function stdioLink(transport: Transport, where: string): LegacyLink {
  const rpc = new RpcClient(transport, { legacy: true });
  return {
    where,
    request: (method, params) => rpc.request(method, params),
    notify: (method) => rpc.notify(method),
    watch: (onNotification, signal, onOpen) =>
      new Promise((resolve) => {
        rpc.onNotification(onNotification);
        onOpen(); // the pipe carries notifications from initialize on
        rpc.onClosed(() => resolve({ how: "gone", reason: "the server closed its output" }));
        signal.addEventListener("abort", () => resolve({ how: "stopped" }), { once: true });
        if (signal.aborted) resolve({ how: "stopped" });
      }),
    close: () => transport.close(),
  };
}

/** Runs one legacy session on `link` and prints it; resolves when stopped, throws CliError otherwise. */
export async function listenLegacy(link: LegacyLink, options: ListenOptions, onEvent: (event: ListenEvent) => void): Promise<void> {
  const stop = new AbortController();
  const abortOnSignal = () => stop.abort();
  options.signal?.addEventListener("abort", abortOnSignal, { once: true });
  try {
    if (LEGACY_PROTOCOL_VERSION === undefined) {
      throw new CliError("this mcp-gen lists no revision that opens with initialize", { hint: "connect to a server that answers server/discover" });
    }
    const initialized = await link.request("initialize", { protocolVersion: LEGACY_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO });
    const result = answerOf(initialized, "initialize", link.where) as {
      protocolVersion?: string;
      capabilities?: Record<string, unknown>;
      serverInfo?: { name?: string; version?: string };
    };
    const capabilities = result.capabilities ?? {};
    onEvent({ kind: "discovered", discovered: { supportedVersions: [String(result.protocolVersion)], capabilities, serverInfo: result.serverInfo } });
    await link.notify("notifications/initialized");
    const defaulted = options.filter === undefined;
    const filter = options.filter ?? advertisedFilter(capabilities);
    if (Object.keys(filter).length === 0) {
      throw new CliError("the server advertises no notification a listen session could carry", {
        hint: "ask explicitly with --tools, --prompts, --resources or --resource URI",
      });
    }
    onEvent({ kind: "listening", filter, defaulted });
    const honored = await subscribeAll(link, filter, capabilities, onEvent);
    let count = 0;
    const watched = link.watch(
      (notification) => {
        if (stop.signal.aborted || !wanted(honored, notification)) return;
        onEvent({ kind: "notification", notification });
        if (options.maxNotifications !== undefined && ++count >= options.maxNotifications) stop.abort();
      },
      stop.signal,
      () => onEvent({ kind: "ack", honored, notHonored: notHonored(filter, honored) }),
    );
    if (options.signal?.aborted) stop.abort();
    const outcome = await watched;
    if (outcome.how === "gone") throw new CliError(`the legacy session ended: ${outcome.reason}`);
    onEvent({ kind: "ended", how: "stopped" });
  } finally {
    options.signal?.removeEventListener("abort", abortOnSignal);
    await link.close().catch(() => {});
  }
}

/** What the session will deliver of `filter`: advertised list changes, and the URIs whose subscribe succeeded (none: a CliError). */
async function subscribeAll(
  link: LegacyLink,
  filter: SubscriptionFilter,
  capabilities: Record<string, unknown>,
  onEvent: (event: ListenEvent) => void,
): Promise<SubscriptionFilter> {
  const honored: Record<string, unknown> = {};
  for (const key of Object.keys(filter) as SubscriptionFilterKey[]) {
    const kind = SUBSCRIPTION_KINDS[key];
    const [group, flag] = kind.serverCapability ?? [];
    const advertised = group !== undefined && (capabilities[group] as Record<string, unknown> | undefined)?.[flag!] === true;
    if (kind.value === "boolean") {
      if (filter[key] === true && advertised) honored[key] = true;
      continue;
    }
    const uris: string[] = [];
    for (const uri of (filter[key] as string[] | undefined) ?? []) {
      if (!advertised) continue;
      const outcome = await link.request("resources/subscribe", { uri });
      if (outcome.kind === "response" && "result" in outcome.response) uris.push(uri);
    }
    if (uris.length > 0) honored[key] = uris;
  }
  const result = honored as SubscriptionFilter;
  if (Object.keys(result).length === 0) {
    onEvent({ kind: "ack", honored: result, notHonored: notHonored(filter, result) });
    throw new CliError("the server offers none of the requested notifications, so nothing could arrive; the session was ended", {
      hint: "ask for what the server advertises (see above), or run without a filter option",
    });
  }
  return result;
}

/** Whether a notification is one of those asked for (and, for an update, of a subscribed URI). */
function wanted(honored: SubscriptionFilter, notification: JsonRpcNotification): boolean {
  for (const key of Object.keys(honored) as SubscriptionFilterKey[]) {
    const kind = SUBSCRIPTION_KINDS[key];
    if (kind.notificationMethod !== notification.method) continue;
    if (kind.value === "boolean") return true;
    const uri = (notification.params as { uri?: unknown } | undefined)?.uri;
    return typeof uri === "string" && (honored[key] as string[]).includes(uri);
  }
  return false;
}

function answerOf(outcome: RequestOutcome, method: string, where: string): Record<string, unknown> {
  if (outcome.kind === "closed")
    throw new CliError(`could not reach the server at ${where}: ${outcome.reason}`, { hint: "is it running, and is this its MCP endpoint?" });
  const response = outcome.response;
  if ("error" in response) throw new CliError(`${method} failed: ${response.error.message} (code ${response.error.code})`);
  return response.result as Record<string, unknown>;
}

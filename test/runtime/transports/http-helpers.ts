/**
 * Raw HTTP helpers for the Streamable HTTP tests: well-formed MCP POSTs (headers mirrored
 * from the body), listen streams read frame by frame, and a small app whose subscription
 * handler counts its callbacks, so tests can check teardown and delivery exactly.
 */
import { sseMessages } from "../../../packages/runtime/src/transports/http-client.js";
import { mcpRequestHeaders } from "../../../packages/runtime/src/transports/http-request.js";
import {
  createServer,
  InProcessEventSource,
  type JsonRpcMessage,
  type Server,
  type ServerOptions,
  type SubscriptionHandler,
  type Unsubscribe,
} from "../../../packages/runtime/src/index.js";

export const VERSION = "2026-07-28";

export function meta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientInfo": { name: "http-test", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
    ...extra,
  };
}

/** The headers a conforming client sends for this message. */
export function mcpHeaders(message: object): Record<string, string> {
  return mcpRequestHeaders(message as JsonRpcMessage);
}

export function request(id: number | string, method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: "2.0" as const, id, method, params: { ...params, _meta: meta() } };
}

/** POSTs one message with matching headers (overridable); resolves with status, headers and parsed body. */
export async function post(url: string, message: any, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: "POST", headers: { ...mcpHeaders(message), ...headers }, body: JSON.stringify(message) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

export interface OpenStream {
  readonly status: number;
  readonly headers: Headers;
  /** The next message on the stream, or undefined when it ended. */
  next(): Promise<any>;
  /** Closes the response from the client side (an outside teardown for the server). */
  close(): void;
}

/** Opens a listen stream and reads it frame by frame. */
export async function openListen(
  url: string,
  id: number | string,
  notifications: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<OpenStream> {
  const message = request(id, "subscriptions/listen", { notifications });
  const abort = new AbortController();
  const response = await fetch(url, { method: "POST", headers: { ...mcpHeaders(message), ...headers }, body: JSON.stringify(message), signal: abort.signal });
  const frames = sseMessages(response.body!);
  return {
    status: response.status,
    headers: response.headers,
    async next() {
      try {
        const result = await frames.next();
        return result.done ? undefined : JSON.parse(result.value);
      } catch {
        return undefined; // aborted
      }
    },
    close: () => abort.abort(),
  };
}

type Topics = { tools: Record<string, never>; resources: { uri: string; pad?: string }; end: Record<string, never> };

export interface CountingApp {
  readonly server: Server;
  readonly events: InProcessEventSource<Topics>;
  readonly counts: { subscribe: number; handleClose: number };
  /** Resolves once handleClose has run `n` times in total. */
  closed(n: number): Promise<void>;
}

/**
 * A server whose one handler joins the "tools" and "resources" topics as asked, and "end"
 * (which stops the stream), and counts its callbacks.
 */
export function countingApp(options: Pick<ServerOptions, "limits" | "onEvent"> = {}): CountingApp {
  const events = new InProcessEventSource<Topics>();
  const counts = { subscribe: 0, handleClose: 0 };
  const waiters: Array<() => void> = [];
  const handler: SubscriptionHandler<Unsubscribe[]> = {
    subscribe(filter, channel) {
      counts.subscribe++;
      if (channel.meta.principal === "mallory") return { stop: "forbidden" };
      const joined: Unsubscribe[] = [events.subscribe("end", () => channel.post({ stop: true }))];
      if (filter.toolsListChanged) joined.push(events.subscribe("tools", () => channel.post({ method: "notifications/tools/list_changed" })));
      const uris = new Set(filter.resourceSubscriptions ?? []);
      if (uris.size > 0) {
        joined.push(
          events.subscribe("resources", ({ uri, pad }) => {
            if (uris.has(uri)) channel.post({ method: "notifications/resources/updated", params: pad === undefined ? { uri } : { uri, pad } });
          }),
        );
      }
      return { stream: joined };
    },
    handleMessage(message, channel, state) {
      if ((message as { stop?: boolean }).stop) {
        for (const leave of state) leave();
        return { stop: "normal" };
      }
      channel.sendNotification(message as { method: string });
      return { stream: state };
    },
    handleClose(_channel, joined) {
      for (const leave of joined) leave();
      counts.handleClose++;
      waiters.splice(0).forEach((wake) => wake());
    },
    subscriptionCapabilities: () => ({ toolsListChanged: true, resourcesUpdated: true }),
  };
  const server = createServer({ name: "http-test", version: "1.0.0", limits: options.limits, onEvent: options.onEvent });
  server.addSubscriptionHandler(handler);
  server.setRequestHandler("tools/list", () => ({ tools: [], ttlMs: 0, cacheScope: "private" as const }));
  server.setRequestHandler("tools/call", (params, context) => ({
    content: [{ type: "text" as const, text: `${params.name} as ${String(context.meta.principal ?? "anonymous")}` }],
  }));
  return {
    server,
    events,
    counts,
    async closed(n) {
      for (let round = 0; round < 10_000 && counts.handleClose < n; round++) await new Promise<void>((wake) => waiters.push(wake));
    },
  };
}

/** A 2025-11-25 `initialize`, as a legacy client opens a session with it. */
export const LEGACY_INITIALIZE = {
  jsonrpc: "2.0" as const,
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "http-test", version: "1.0.0" } },
};

/**
 * POSTs a legacy `initialize` from the loopback address `localAddress` (127.0.0.N: every one
 * reaches 127.0.0.1 on Linux), with extra headers; resolves with the status, once the answer is read.
 */
export async function initializeFrom(url: string, localAddress: string, headers: Record<string, string> = {}): Promise<number> {
  const { request: httpRequest } = await import("node:http");
  const body = JSON.stringify(LEGACY_INITIALIZE);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method: "POST",
        localAddress,
        agent: false,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "content-length": Buffer.byteLength(body), ...headers },
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

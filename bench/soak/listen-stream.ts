/**
 * A lean `subscriptions/listen` client for the soak: one raw POST per stream on a shared
 * keep-alive agent, SSE frames split by hand, every message counted. A full client object
 * per stream would measure the client, not the server.
 */
import { Agent, request, type ClientRequest } from "node:http";

export const PROTOCOL_VERSION = "2026-07-28";
const SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId";

export type Filter = { toolsListChanged?: boolean; promptsListChanged?: boolean; resourceSubscriptions?: string[] };

export interface ListenStream {
  readonly id: string;
  readonly filter: Filter;
  /** Resolves on the ack; rejects if the stream ends or errors first. */
  readonly acked: Promise<void>;
  /** Notifications received after the ack, by method (resources/updated by URI). */
  readonly received: Map<string, number>;
  /** Messages that broke a rule: wrong or missing subscription id, a type not asked for. */
  readonly violations: string[];
  /** Time the latest notification arrived (performance.now()). */
  lastArrival: number;
  /** Whether the listen request was answered with its `complete` result (a graceful end). */
  completed: boolean;
  total: number;
  close(): void;
}

export const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

export function openListenStream(url: URL, id: string, filter: Filter): ListenStream {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "subscriptions/listen",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
      },
      notifications: filter,
    },
  });
  let req: ClientRequest;
  const stream: ListenStream = {
    id,
    filter,
    acked: undefined as unknown as Promise<void>,
    received: new Map(),
    violations: [],
    lastArrival: 0,
    completed: false,
    total: 0,
    close: () => req.destroy(),
  };
  (stream as { acked: Promise<void> }).acked = new Promise((resolve, reject) => {
    let ackSeen = false;
    req = request(url, {
      method: "POST",
      agent,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": PROTOCOL_VERSION,
        "mcp-method": "subscriptions/listen",
        "content-length": Buffer.byteLength(body),
      },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`listen ${id}: HTTP ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding("utf8");
      let buffered = "";
      res.on("data", (chunk: string) => {
        buffered += chunk;
        let end: number;
        while ((end = buffered.indexOf("\n\n")) !== -1) {
          const frame = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = frame.split("\n").find((line) => line.startsWith("data: "));
          if (data === undefined) continue; // a keep-alive comment
          const message = JSON.parse(data.slice(6));
          if (!ackSeen) {
            if (message.method !== "notifications/subscriptions/acknowledged") {
              stream.violations.push(`first message was ${message.method ?? "a response"}`);
            }
            ackSeen = true;
            resolve();
            continue;
          }
          record(stream, message);
        }
      });
      res.on("end", () => reject(new Error(`listen ${id}: stream ended before the ack`)));
      res.on("error", reject);
    });
    req.end(body);
  });
  stream.acked.catch(() => {}); // callers await it; an early rejection must not be unhandled
  return stream;
}

function record(stream: ListenStream, message: { method?: string; params?: Record<string, any>; result?: Record<string, any> }): void {
  if (message.method === undefined) {
    const stamped = message.result?._meta?.[SUBSCRIPTION_ID_KEY];
    if (message.result?.resultType !== "complete" || stamped !== stream.id) {
      stream.violations.push(`answered with ${JSON.stringify(message).slice(0, 200)}`);
    }
    stream.completed = true;
    return;
  }
  stream.lastArrival = performance.now();
  stream.total++;
  const stamped = message.params?._meta?.[SUBSCRIPTION_ID_KEY];
  if (stamped !== stream.id) stream.violations.push(`stamped ${JSON.stringify(stamped)}, expected ${stream.id}`);
  const method = message.method ?? "response";
  const key = method === "notifications/resources/updated" ? `${method} ${message.params?.uri}` : method;
  if (!wanted(stream.filter, method, message.params?.uri)) stream.violations.push(`not asked for: ${key}`);
  stream.received.set(key, (stream.received.get(key) ?? 0) + 1);
}

function wanted(filter: Filter, method: string, uri: unknown): boolean {
  if (method === "notifications/tools/list_changed") return filter.toolsListChanged === true;
  if (method === "notifications/prompts/list_changed") return filter.promptsListChanged === true;
  if (method === "notifications/resources/updated") return filter.resourceSubscriptions?.includes(uri as string) === true;
  return false;
}

/** Calls one tool over plain JSON-RPC POST and returns the parsed response. */
export async function callTool(url: URL, name: string, args: Record<string, unknown>): Promise<any> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: `call-${name}-${Date.now()}`,
    method: "tools/call",
    params: {
      name,
      arguments: args,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": PROTOCOL_VERSION,
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`tools/call ${name}: HTTP ${response.status} ${text}`);
  // The reply may come as JSON or as one SSE frame.
  const json = text.startsWith("{")
    ? text
    : text
        .split("\n")
        .find((line) => line.startsWith("data: "))
        ?.slice(6);
  return JSON.parse(json ?? "null");
}

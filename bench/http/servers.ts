/**
 * One HTTP listen server per process, for the side-by-side bench (`run.ts` forks this file
 * once per kind). Every kind serves `subscriptions/listen` on POST /mcp with an SSE
 * response, acks it, and on a `fire` command writes `notifications/tools/list_changed`
 * to every open stream:
 * - `runtime`: the generated runtime (createServer + a subscription handler on an
 *   in-process event source) behind our Streamable HTTP transport (`serveHttp`);
 * - `fetch`: the same server behind the fetch handler (`toFetchHandler`), served from
 *   node:http by @hono/node-server, the adapter a Node user of a fetch handler takes;
 * - `fetch-bun`: the same fetch handler served by Bun.serve, this file run by real Bun (the
 *   runtime a fetch handler is made for);
 * - `sdk`: the official SDK, `createMcpHandler` from @modelcontextprotocol/server, with a
 *   minimal node:http adapter for its fetch-shaped handler;
 * - `bare`: node:http writing one pre-serialised SSE frame to each open response (the floor);
 * - `fetch-bare`: the same floor as a fetch handler on @hono/node-server: the body read with
 *   `request.text()`, a `Response` over a `ReadableStream` that frames are enqueued on. What
 *   Node's web-standard Request and Response cost any fetch handler, before its own work.
 * Commands come over IPC: `{ fire, batch }` publishes in batches (yielding to I/O between
 * batches, as a real event source would), `{ rss }` reports RSS after a full GC.
 */
import { createServer as createNodeServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer, InProcessEventSource, toFetchHandler, type HttpEndpointOptions } from "../../packages/runtime/src/index.js";
import { serveHttp } from "../../packages/runtime/src/transports/http-server.js";
import { toolsListChangedHandler, type ToolEvents } from "./list-changed.js";
import { serveFetch } from "./serve-fetch.js";

type Kind = "runtime" | "fetch" | "fetch-bun" | "sdk" | "bare" | "fetch-bare";
type Fire = () => void;

const kind = process.argv[2] as Kind;
const yieldToIo = () => new Promise((resolve) => setImmediate(resolve));

// The slow-consumer policy is lifted (the SDK and bare buffer without bound): a load
// client descheduled for a moment on a busy machine must not see bursts coalesced.
const UNBOUNDED: HttpEndpointOptions = {
  keepAliveMs: 0,
  highWaterBytes: 64 * 1024 * 1024,
  maxBufferedBytes: 256 * 1024 * 1024,
  maxTotalBufferedBytes: Number.MAX_SAFE_INTEGER,
  maxStalledMs: 0,
};

function benchServer() {
  const events = new InProcessEventSource<ToolEvents>();
  const server = createServer({ name: "bench-runtime", version: "1.0.0", limits: { maxStreams: 100_000, maxStreamsPerClient: 100_000 } });
  server.addSubscriptionHandler(toolsListChangedHandler(events));
  return { server, fire: () => void events.publish("tools", {}) };
}

async function startRuntime(): Promise<{ port: number; fire: Fire }> {
  const { server, fire } = benchServer();
  const handle = await serveHttp(server, { port: 0, ...UNBOUNDED });
  return { port: handle.port, fire };
}

async function startFetch(): Promise<{ port: number; fire: Fire }> {
  const { serve } = await import("@hono/node-server");
  const { server, fire } = benchServer();
  const http = serve({ fetch: toFetchHandler(server, { path: "/mcp", ...UNBOUNDED }), hostname: "127.0.0.1", port: 0 }) as ReturnType<typeof createNodeServer>;
  if (!http.listening) await new Promise<void>((ready) => http.once("listening", ready));
  return { port: (http.address() as AddressInfo).port, fire };
}

async function startFetchBun(): Promise<{ port: number; fire: Fire }> {
  const { server, fire } = benchServer();
  const bun = (globalThis as unknown as { Bun: { serve(options: object): { port: number } } }).Bun;
  const served = bun.serve({ fetch: toFetchHandler(server, { path: "/mcp", ...UNBOUNDED }), hostname: "127.0.0.1", port: 0, idleTimeout: 0 });
  return { port: served.port, fire };
}

async function startSdk(): Promise<{ port: number; fire: Fire }> {
  const { createMcpHandler, McpServer } = await import("@modelcontextprotocol/server");
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: "bench-sdk", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
      server.registerTool("noop", { description: "does nothing" }, async () => ({ content: [] }));
      return server;
    },
    { legacy: "reject", keepAliveMs: 0, maxSubscriptions: 100_000 },
  );
  const http = createNodeServer((req, res) => void serveFetch(handler.fetch, req, res));
  const port = await listen(http);
  return { port, fire: () => handler.notify.toolsChanged() };
}

async function startBare(): Promise<{ port: number; fire: Fire }> {
  const open = new Set<ServerResponse>();
  const ack = `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: { toolsListChanged: true } } })}\n\n`;
  const frame = `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: {} })}\n\n`;
  const http = createNodeServer((req, res) => {
    req.resume();
    req.once("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(ack);
      open.add(res);
      res.once("close", () => open.delete(res));
    });
  });
  const port = await listen(http);
  return { port, fire: () => open.forEach((res) => res.write(frame)) };
}

async function startFetchBare(): Promise<{ port: number; fire: Fire }> {
  const { serve } = await import("@hono/node-server");
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const encoder = new TextEncoder();
  const ack = encoder.encode(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: { toolsListChanged: true } } })}\n\n`);
  const frame = encoder.encode(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: {} })}\n\n`);
  const fetch = async (request: Request) => {
    await request.text();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        c.enqueue(ack);
        open.add(c);
      },
      cancel: () => void open.delete(controller),
    });
    return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  };
  const http = serve({ fetch, hostname: "127.0.0.1", port: 0 }) as ReturnType<typeof createNodeServer>;
  if (!http.listening) await new Promise<void>((ready) => http.once("listening", ready));
  return { port: (http.address() as AddressInfo).port, fire: () => open.forEach((c) => c.enqueue(frame)) };
}

function listen(server: ReturnType<typeof createNodeServer>): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

const starters: Record<Kind, () => Promise<{ port: number; fire: Fire }>> = { runtime: startRuntime, fetch: startFetch, "fetch-bun": startFetchBun, sdk: startSdk, bare: startBare, "fetch-bare": startFetchBare };
const { port, fire } = await starters[kind]();

process.on("message", async (command: { fire?: number; batch?: number; rss?: boolean }) => {
  if (command.fire !== undefined) {
    const batch = command.batch ?? 100;
    for (let sent = 0; sent < command.fire;) {
      for (let i = 0; i < batch && sent < command.fire; i++, sent++) fire();
      await yieldToIo();
    }
    process.send!({ fired: command.fire });
  }
  if (command.rss) {
    for (let i = 0; i < 3; i++) {
      (globalThis as { gc?: () => void }).gc?.();
      (globalThis as { Bun?: { gc(sync: boolean): void } }).Bun?.gc(true);
      await yieldToIo();
    }
    process.send!({ rss: process.memoryUsage().rss });
  }
});
process.send!({ port });
// The bench process went away (or is done): leave no server behind.
process.on("disconnect", () => process.exit(0));
// Stopped by the bench (SIGTERM): exit normally, so that a --cpu-prof profile is written.
process.on("SIGTERM", () => process.exit(0));

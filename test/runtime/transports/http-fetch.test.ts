/**
 * The fetch handler under Node's own Request/Response: the same endpoint as the node
 * handler (one core), called with web requests and read through web responses. Legacy
 * sessions are driven by the official 1.x SDK client through @hono/node-server, a real
 * node-to-fetch bridge.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { serve } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { HttpAuthError, toFetchHandler, type FetchHandlerOptions } from "../../../packages/runtime/src/index.js";
import type { SseStreamReport } from "../../../packages/runtime/src/transports/http-exchange.js";
import { createServer, InProcessEventSource } from "../../../packages/runtime/src/index.js";
import { toolsListChangedHandler, type ToolEvents } from "../../../bench/http/list-changed.js";
import { countingApp, initializeFrom, mcpHeaders, request } from "./http-helpers.js";

const T = { timeout: 20_000 };
const URL_ = "http://127.0.0.1/mcp";

function webPost(message: unknown, headers: Record<string, string> = {}, init: RequestInit = {}): Request {
  return new Request(URL_, { method: "POST", headers: { ...mcpHeaders(message as object), ...headers }, body: JSON.stringify(message), ...init });
}

async function listen(handler: ReturnType<typeof toFetchHandler>, id: string, signal?: AbortSignal) {
  const response = await handler(webPost(request(id, "subscriptions/listen", { notifications: { toolsListChanged: true } }), {}, signal ? { signal } : {}));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  return { response, ...frameReader(response.body!) };
}

/** Reads SSE frames off a body with its own reader, so the test can cancel the stream as a client would. */
function frameReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  return {
    async next(): Promise<string | undefined> {
      for (;;) {
        const end = text.indexOf("\n\n");
        if (end >= 0) {
          const frame = text.slice(0, end);
          text = text.slice(end + 2);
          const data = frame.split("\n").find((line) => line.startsWith("data: "));
          if (data !== undefined) return data.slice(6);
          continue;
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        text += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}

describe("the fetch handler (toFetchHandler) on Node's Request and Response", () => {
  it("a lone request is answered with a JSON Response", T, async () => {
    const app = countingApp();
    const response = await toFetchHandler(app.server)(webPost(request(1, "server/discover")));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/json");
    const body = (await response.json()) as { id: number; result: { supportedVersions: string[] } };
    assert.equal(body.id, 1);
    assert.ok(body.result.supportedVersions.includes("2026-07-28"));
  });

  it("a listen stream is a ReadableStream of SSE: ack, then each notification; cancelling it runs handleClose", T, async () => {
    const app = countingApp();
    const handler = toFetchHandler(app.server);
    const stream = await listen(handler, "s1");
    assert.equal(JSON.parse((await stream.next())!).method, "notifications/subscriptions/acknowledged");
    await app.events.publish("tools", {});
    const note = JSON.parse((await stream.next())!);
    assert.equal(note.method, "notifications/tools/list_changed");
    assert.equal(note.params._meta["io.modelcontextprotocol/subscriptionId"], "s1");
    await stream.cancel();
    await app.closed(1);
  });

  it(
    "a stream's Response says Transfer-Encoding: chunked, so a node bridge (@hono/node-server) sends the ack without waiting to count a length",
    T,
    async () => {
      const app = countingApp();
      const stream = await listen(toFetchHandler(app.server), "s3");
      assert.equal(stream.response.headers.get("transfer-encoding"), "chunked");
      const lone = await toFetchHandler(app.server)(webPost(request(9, "server/discover")));
      assert.equal(lone.headers.get("transfer-encoding"), null, "a lone answer has a length");
      await stream.cancel();
      await app.closed(1);
    },
  );

  it("an aborted request signal (the client went away) ends its stream: handleClose runs, and the body is ended for the runtime", T, async () => {
    const app = countingApp();
    const abort = new AbortController();
    const stream = await listen(toFetchHandler(app.server), "s2", abort.signal);
    assert.equal(JSON.parse((await stream.next())!).method, "notifications/subscriptions/acknowledged");
    abort.abort();
    await app.closed(1);
    await assert.rejects(stream.next(), /the client went away/, "a runtime still reading the body sees it end");
  });

  it("the node handler's checks: 405, 415, 406, 403 for a foreign Origin, CORS for an allowed one, 404 off the path", T, async () => {
    const app = countingApp();
    const handler = toFetchHandler(app.server, { path: "/mcp" });
    const message = request(2, "tools/list");
    assert.equal((await handler(new Request(URL_, { method: "GET" }))).status, 405);
    assert.equal((await handler(webPost(message, { "content-type": "text/plain" }))).status, 415);
    assert.equal((await handler(webPost(message, { accept: "image/png" }))).status, 406);
    assert.equal((await handler(webPost(message, { origin: "https://evil.example" }))).status, 403);
    const allowed = await handler(webPost(request(3, "server/discover"), { origin: "http://localhost:5173" }));
    assert.equal(allowed.headers.get("access-control-allow-origin"), "http://localhost:5173");
    const elsewhere = await handler(new Request("http://127.0.0.1/other", { method: "POST" }));
    assert.equal(elsewhere.status, 404);
    assert.match(((await elsewhere.json()) as { error: { message: string } }).error.message, /use \/mcp/);
  });

  it("body limits: a declared or streamed body over maxBodyBytes is 413; a body that never ends is 408 at bodyTimeoutMs", T, async () => {
    const app = countingApp();
    const handler = toFetchHandler(app.server, { maxBodyBytes: 1024, bodyTimeoutMs: 200 });
    const big = { ...request(4, "tools/list"), pad: "x".repeat(4096) };
    assert.equal((await handler(webPost(big))).status, 413);
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify(big)));
        controller.close();
      },
    });
    assert.equal((await handler(new Request(URL_, { method: "POST", headers: mcpHeaders(big), body: streamed, duplex: "half" } as RequestInit))).status, 413);
    const never = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new TextEncoder().encode("{")) });
    // The deadline timer is unref'd (a server's sockets keep it alive); here nothing else would.
    const alive = setInterval(() => {}, 1000);
    const slow = await handler(new Request(URL_, { method: "POST", headers: mcpHeaders(big), body: never, duplex: "half" } as RequestInit)).finally(() =>
      clearInterval(alive),
    );
    assert.equal(slow.status, 408);
    assert.match(((await slow.json()) as { error: { message: string } }).error.message, /bodyTimeoutMs/);
  });

  it("a body of declared length that stops coming is 408 at bodyTimeoutMs, its budget given back", T, async () => {
    const app = countingApp();
    const handler = toFetchHandler(app.server, { bodyTimeoutMs: 200, maxTotalBodyBytes: 100_000 });
    const message = request(7, "tools/list");
    const stalled = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new TextEncoder().encode("{")) });
    const headers = { ...mcpHeaders(message), "content-length": "5000" };
    const probe = new Request(URL_, { method: "POST", headers, body: stalled, duplex: "half" } as RequestInit);
    assert.equal(probe.headers.get("content-length"), "5000", "the declared length reaches the handler");
    const alive = setInterval(() => {}, 1000);
    const slow = await handler(probe).finally(() => clearInterval(alive));
    assert.equal(slow.status, 408);
    // All 100,000 budget bytes are free again: a body of 90,000 declared bytes is read, not refused with 503.
    const big = { ...message, id: 8, pad: "z".repeat(90_000) };
    assert.equal((await handler(webPost(big))).status, 200);
  });

  it("authenticate gets the web Request: its value is the principal; HttpAuthError answers 401 with the challenge", T, async () => {
    const app = countingApp();
    const seen: string[] = [];
    const options: FetchHandlerOptions = {
      authenticate: (req) => {
        const token = req.headers.get("authorization");
        if (token !== "Bearer good") throw new HttpAuthError("no valid token", 401, 'Bearer resource_metadata="x"');
        seen.push(token);
        return { user: "alice" };
      },
    };
    const handler = toFetchHandler(app.server, options);
    const refused = await handler(webPost(request(5, "server/discover")));
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get("www-authenticate"), 'Bearer resource_metadata="x"');
    assert.equal((await handler(webPost(request(6, "server/discover"), { authorization: "Bearer good" }))).status, 200);
    assert.deepEqual(seen, ["Bearer good"]);
  });

  it("a stream whose reader never reads is evicted at maxBufferedBytes, as on the node path", T, async () => {
    const app = countingApp();
    const reports: SseStreamReport[] = [];
    const handler = toFetchHandler(app.server, { maxBufferedBytes: 64 * 1024, keepAliveMs: 0, onStreamEnd: (report) => reports.push(report) });
    const response = await handler(webPost(request("slow", "subscriptions/listen", { notifications: { resourceSubscriptions: ["file:///a"] } })));
    assert.equal(response.status, 200);
    for (let round = 0; round < 200 && reports.length === 0; round++) {
      await app.events.publish("resources", { uri: "file:///a", pad: "y".repeat(4096) + round });
      await new Promise((wake) => setImmediate(wake));
    }
    assert.equal(reports.length, 1);
    assert.equal(reports[0]!.eviction, "stream-cap");
    await app.closed(1);
  });

  it("a 2025-11-25 session through the fetch handler: the official 1.x client initializes, lists tools and gets a list change", T, async () => {
    const events = new InProcessEventSource<ToolEvents>();
    const server = createServer({ name: "legacy-fetch", version: "1.0.0" });
    server.addSubscriptionHandler(toolsListChangedHandler(events));
    server.addTool({ name: "noop", inputSchema: { type: "object" } }, () => ({ content: [] }));
    const http = serve({ fetch: toFetchHandler(server, { path: "/mcp" }), hostname: "127.0.0.1", port: 0 });
    await new Promise<void>((ready) => http.once("listening", ready));
    const { port } = http.address() as { port: number };
    const client = new Client({ name: "legacy-fetch", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
      assert.ok(client.getServerVersion());
      assert.deepEqual(
        (await client.listTools()).tools.map((tool) => tool.name),
        ["noop"],
      );
      const changed = new Promise<void>(
        (done) => (client.fallbackNotificationHandler = async (note) => void (note.method === "notifications/tools/list_changed" && done())),
      );
      await new Promise((wait) => setTimeout(wait, 200)); // the client's GET stream opens after initialized
      await events.publish("tools", {});
      await changed;
    } finally {
      await client.close();
      await new Promise<void>((closed) => http.close(() => closed()));
    }
  });

  it("a 2024-11-05 session over HTTP+SSE through the fetch handler: today's 1.x SSE client lists tools and gets a list change on its stream", T, async () => {
    const events = new InProcessEventSource<ToolEvents>();
    const server = createServer({ name: "sse-fetch", version: "1.0.0" });
    server.addSubscriptionHandler(toolsListChangedHandler(events));
    server.addTool({ name: "noop", inputSchema: { type: "object" } }, () => ({ content: [] }));
    const http = serve({ fetch: toFetchHandler(server, { path: "/mcp" }), hostname: "127.0.0.1", port: 0 });
    await new Promise<void>((ready) => http.once("listening", ready));
    const { port } = http.address() as { port: number };
    const client = new Client({ name: "sse-fetch", version: "1.0.0" });
    try {
      await client.connect(new SSEClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
      assert.equal(server.legacySessions.size, 1);
      assert.deepEqual(
        (await client.listTools()).tools.map((tool) => tool.name),
        ["noop"],
      );
      const changed = new Promise<void>(
        (done) => (client.fallbackNotificationHandler = async (note) => void (note.method === "notifications/tools/list_changed" && done())),
      );
      await events.publish("tools", {});
      await changed;
    } finally {
      await client.close();
      await new Promise<void>((closed) => http.close(() => closed()));
    }
  });

  it("served by @hono/node-server, a client is its incoming socket's address: one address holds its share of sessions, another is served", T, async () => {
    const server = createServer({ name: "shares-fetch", version: "1.0.0", legacy: { maxSessionsPerClient: 1 } });
    const http = serve({ fetch: toFetchHandler(server, { path: "/mcp" }), hostname: "127.0.0.1", port: 0 });
    await new Promise<void>((ready) => http.once("listening", ready));
    const url = `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;
    try {
      assert.equal(await initializeFrom(url, "127.0.0.2"), 200);
      assert.equal(await initializeFrom(url, "127.0.0.2"), 429, "127.0.0.2 is at its share");
      assert.equal(await initializeFrom(url, "127.0.0.3"), 200, "another address has its own share");
    } finally {
      await server.close();
      await new Promise<void>((closed) => http.close(() => closed()));
    }
  });

  it("the fetch path imports no node: module (it runs on Workers as on Bun and Deno)", () => {
    const found = nodeImportsFrom(resolve(dirname(fileURLToPath(import.meta.url)), "../../../packages/runtime/src/transports/http-fetch.ts"));
    assert.deepEqual(found, []);
  });
});

/** Every value import of a `node:` module in the module graph from `entry` (type imports are erased). */
function nodeImportsFrom(entry: string): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(file, "utf8").matchAll(/^(?:import|export)\s+(type\s+)?([^;]*?)\s+from\s+"([^"]+)";/gms)) {
      const [, typeOnly, clause = "", specifier = ""] = match;
      const names = clause.trim().startsWith("{")
        ? clause
            .replace(/[{}]/g, "")
            .split(",")
            .map((name) => name.trim())
            .filter(Boolean)
        : [clause];
      if (typeOnly !== undefined || names.every((name) => name.startsWith("type "))) continue;
      if (specifier.startsWith("node:")) found.push(`${file}: ${specifier}`);
      else if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
    }
  };
  visit(entry);
  assert.ok(seen.size > 20, "the scan followed the imports");
  return found;
}

/**
 * The HTTP+SSE transport of 2024-11-05 (legacy/sse-endpoint.ts): the official clients that
 * speak it (1.0.4, pinned to 2024-11-05, and today's 1.x SSE client) over a real event stream
 * and real POSTs on 127.0.0.1, then the rules a peer meets, seen on the wire.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EventSource } from "eventsource";
import { Client as Client104 } from "mcp-sdk-1.0.4/client/index.js";
import { SSEClientTransport as Sse104 } from "mcp-sdk-1.0.4/client/sse.js";
import { ResourceUpdatedNotificationSchema as Updated104, ToolListChangedNotificationSchema as ToolsChanged104 } from "mcp-sdk-1.0.4/types.js";
import { Client as ClientNow } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport as SseNow } from "@modelcontextprotocol/sdk/client/sse.js";
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { createServer, InProcessEventSource, type LegacyOptions } from "../../../packages/runtime/src/index.js";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { createFanoutServer, type FanoutTopics } from "../../support/fanout-app.js";
import { eventually } from "../../support/eventually.js";

// 1.0.4's client opens its stream with the global EventSource, which its Node users installed from this package.
(globalThis as { EventSource?: unknown }).EventSource ??= EventSource;

const SLOW = { timeout: 60_000 };
const INITIALIZE = { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "raw", version: "1" } };

describe("the official clients that speak HTTP+SSE", () => {
  let handle: HttpServerHandle;
  const server = createFanoutServer(new InProcessEventSource<FanoutTopics>(), "sse-app");
  before(async () => {
    handle = await serveHttp(server);
  });
  after(() => handle?.close());

  /** The part of a 1.x client the scenario uses, the same in both releases (each has its own types). */
  interface SseClient {
    setNotificationHandler(schema: unknown, handler: (notification: { method: string; params?: any }) => void): void;
    connect(transport: unknown): Promise<void>;
    listTools(): Promise<{ tools: Array<{ name: string }> }>;
    callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
    subscribeResource(params: { uri: string }): Promise<unknown>;
    close(): Promise<void>;
  }
  const clients: Record<string, () => { client: SseClient; transport: unknown; schemas: unknown[] }> = {
    "the 1.x SDK client 1.0.4 (2024-11-05)": () => ({
      client: new Client104({ name: "sdk-1.0.4", version: "1" }, { capabilities: {} }) as unknown as SseClient,
      transport: new Sse104(new URL(handle.url)),
      schemas: [ToolsChanged104, Updated104],
    }),
    "today's 1.x SDK SSE client": () => ({
      client: new ClientNow({ name: "sdk-now", version: "1" }) as unknown as SseClient,
      transport: new SseNow(new URL(handle.url)),
      schemas: [ToolListChangedNotificationSchema, ResourceUpdatedNotificationSchema],
    }),
  };

  for (const [label, make] of Object.entries(clients)) {
    it(`${label} lists, calls, hears list_changed and a subscribed resource's update; closing its stream ends the session`, SLOW, async () => {
      const { client, transport, schemas } = make();
      const heard: Array<{ method: string; params?: any }> = [];
      for (const schema of schemas) client.setNotificationHandler(schema, (n) => void heard.push(n));
      await client.connect(transport);
      try {
        assert.equal(server.legacySessions.size, 1, "one session");
        assert.deepEqual(
          (await client.listTools()).tools.map((tool) => tool.name),
          ["fire"],
        );
        await client.callTool({ name: "fire", arguments: { tools: true, prompts: false } });
        assert.ok(await eventually(() => heard.some((n) => n.method === "notifications/tools/list_changed"), 10_000), "heard list_changed");
        await client.subscribeResource({ uri: "file:///watched" });
        await client.callTool({ name: "fire", arguments: { tools: false, prompts: false, resourceUris: ["file:///other", "file:///watched"] } });
        assert.ok(await eventually(() => heard.some((n) => n.method === "notifications/resources/updated"), 10_000), "heard the update");
        assert.deepEqual(
          heard.filter((n) => n.method === "notifications/resources/updated").map((n) => n.params),
          [{ uri: "file:///watched" }],
          "only the subscribed URI, in its revision's shape",
        );
      } finally {
        await client.close();
      }
      assert.ok(await eventually(() => server.legacySessions.size === 0, 10_000), "the session ended with its stream");
    });
  }
});

/** One raw event stream: its `endpoint` URL and the events after it, read as they arrive. */
interface RawStream {
  readonly response: Response;
  readonly endpoint: URL;
  next(): Promise<{ event: string; data: string } | undefined>;
  close(): void;
}

async function openRaw(url: string, headers: Record<string, string> = {}): Promise<RawStream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: abort.signal });
  assert.equal(response.status, 200, `GET answered ${response.status}: ${response.status === 200 ? "" : await response.text()}`);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const next = async () => {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const lines = buffer.slice(0, end).split("\n");
        buffer = buffer.slice(end + 2);
        if (lines.every((line) => line.startsWith(":"))) continue; // a keep-alive comment
        const field = (name: string) =>
          lines
            .find((line) => line.startsWith(`${name}:`))
            ?.slice(name.length + 1)
            .trimStart() ?? "";
        return { event: field("event") || "message", data: field("data") };
      }
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) return undefined;
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
  const first = await next();
  assert.equal(first?.event, "endpoint", "the first event names the POST URL");
  return { response, endpoint: new URL(first.data, url), next, close: () => abort.abort() };
}

function postTo(endpoint: URL, message: object, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(endpoint, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(message) });
}

async function withServer(
  legacy: LegacyOptions | false,
  run: (handle: HttpServerHandle, server: ReturnType<typeof createServer>) => Promise<void>,
  authenticate?: (header: unknown) => unknown,
) {
  const server = createServer({ name: "raw-sse", version: "1.0.0", legacy });
  const handle = await serveHttp(server, authenticate === undefined ? {} : { authenticate: (req) => authenticate(req.headers["x-user"]) });
  try {
    await run(handle, server);
  } finally {
    await server.close();
    await handle.close();
  }
}

describe("HTTP+SSE on the wire", () => {
  it("the stream's first event is a relative POST URL; a POST is 202 with no body and its answer travels on the stream", SLOW, async () => {
    await withServer({}, async (handle, server) => {
      const stream = await openRaw(handle.url);
      try {
        assert.equal(stream.response.headers.get("content-type"), "text/event-stream");
        assert.equal(stream.endpoint.pathname, new URL(handle.url).pathname, "the same path");
        assert.match(stream.endpoint.search, /^\?sessionId=[0-9a-f-]{36}$/);
        const posted = await postTo(stream.endpoint, { jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE });
        assert.equal(posted.status, 202);
        assert.equal(await posted.text(), "");
        const answer = await stream.next();
        assert.equal(answer?.event, "message");
        assert.deepEqual({ id: JSON.parse(answer!.data).id, version: JSON.parse(answer!.data).result.protocolVersion }, { id: 1, version: "2024-11-05" });
        assert.equal(server.legacySessions.size, 1);
      } finally {
        stream.close();
      }
      assert.ok(await eventually(() => server.legacySessions.size === 0, 10_000), "the session ends with its stream");
    });
  });

  it("the first message must be initialize, an unknown sessionId is 404, and a stream answers only the principal that opened it", SLOW, async () => {
    await withServer(
      {},
      async (handle) => {
        const stream = await openRaw(handle.url, { "x-user": "ada" });
        try {
          const early = await postTo(stream.endpoint, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "x-user": "ada" });
          assert.equal(early.status, 400);
          assert.match(((await early.json()) as { error: { message: string } }).error.message, /first message on this event stream must be initialize/);
          const unknown = new URL(stream.endpoint);
          unknown.searchParams.set("sessionId", crypto.randomUUID());
          assert.equal((await postTo(unknown, { jsonrpc: "2.0", id: 2, method: "initialize", params: INITIALIZE }, { "x-user": "ada" })).status, 404);
          assert.equal((await postTo(stream.endpoint, { jsonrpc: "2.0", id: 3, method: "initialize", params: INITIALIZE }, { "x-user": "bob" })).status, 404);
          assert.equal((await postTo(stream.endpoint, { jsonrpc: "2.0", id: 4, method: "initialize", params: INITIALIZE }, { "x-user": "ada" })).status, 202);
          assert.equal(JSON.parse((await stream.next())!.data).id, 4, "only ada's initialize was served");
        } finally {
          stream.close();
        }
      },
      (user) => (typeof user === "string" ? { user } : undefined),
    );
  });

  it("a stream waits sseInitializeMs for initialize, and a client holds at most maxSessionsPerClient streams (429 beyond, nothing opened)", SLOW, async () => {
    await withServer({ sseInitializeMs: 300, maxSessions: 10, maxSessionsPerClient: 2 }, async (handle) => {
      const [first, second] = [await openRaw(handle.url), await openRaw(handle.url)];
      const third = await fetch(handle.url, { headers: { accept: "text/event-stream" } });
      assert.equal(third.status, 429);
      assert.match(((await third.json()) as { error: { message: string } }).error.message, /already holds 2 legacy sessions and event streams/);
      // Neither sends initialize: both end by themselves, and their slots come back.
      assert.equal(await first.next(), undefined, "the first stream ended");
      assert.equal(await second.next(), undefined, "the second stream ended");
      const again = await openRaw(handle.url);
      again.close();
    });
  });

  it("an HTTP+SSE stream takes one slot of the sessions' pools from its GET to its end, and its session takes no second", SLOW, async () => {
    await withServer({ maxSessions: 10, maxSessionsPerClient: 2, sseInitializeMs: 120_000 }, async (handle) => {
      const initializeOverStreamableHttp = () =>
        fetch(handle.url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { ...INITIALIZE, protocolVersion: "2025-11-25" } }),
        });
      const stream = await openRaw(handle.url);
      try {
        const session = await initializeOverStreamableHttp();
        assert.equal(session.status, 200, "the second of the client's two slots");
        assert.equal((await fetch(handle.url, { headers: { accept: "text/event-stream" } })).status, 429, "no third: a stream counts in the share");
        assert.equal((await initializeOverStreamableHttp()).status, 429, "no third: a waiting stream holds a session's slot");
        assert.equal(
          (await postTo(stream.endpoint, { jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE })).status,
          202,
          "the stream's session uses its slot",
        );
        assert.equal(JSON.parse((await stream.next())!.data).id, 1);
        assert.equal((await initializeOverStreamableHttp()).status, 429, "still two held, not three");
      } finally {
        stream.close();
      }
      assert.ok(await eventually(async () => (await initializeOverStreamableHttp()).status === 200, 10_000), "the stream's end gives its slot back, once");
      assert.equal((await initializeOverStreamableHttp()).status, 429, "and only one");
    });
  });

  it("an HTTP+SSE session holds at most sseMaxInFlight requests running: one more is 429 with Retry-After and the JSON-RPC error of its id", SLOW, async () => {
    await withServer({ sseMaxInFlight: 2 }, async (handle, server) => {
      const gates: Array<() => void> = [];
      server.addTool({ name: "wait", inputSchema: { type: "object" } }, () => new Promise((resolve) => gates.push(() => resolve({ content: [] }))));
      const stream = await openRaw(handle.url);
      try {
        await postTo(stream.endpoint, { jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE });
        assert.equal(JSON.parse((await stream.next())!.data).id, 0);
        const call = (id: number) => postTo(stream.endpoint, { jsonrpc: "2.0", id, method: "tools/call", params: { name: "wait", arguments: {} } });
        assert.deepEqual([(await call(1)).status, (await call(2)).status], [202, 202]);
        const refused = await call(3);
        assert.equal(refused.status, 429);
        assert.equal(refused.headers.get("retry-after"), "1");
        const error = (await refused.json()) as { id: unknown; error: { message: string } };
        assert.equal(error.id, 3, "the error names the refused request");
        assert.match(error.error.message, /already has 2 requests running/);
        assert.equal((await postTo(stream.endpoint, { jsonrpc: "2.0", method: "notifications/initialized" })).status, 202, "a notification is still taken");
        assert.ok(await eventually(() => gates.length === 2, 10_000), "both requests run");
        gates.shift()!();
        assert.ok([1, 2].includes(JSON.parse((await stream.next())!.data).id), "one answer went out");
        assert.equal((await call(4)).status, 202, "its room came back");
        assert.equal((await call(5)).status, 429);
      } finally {
        for (const open of gates.splice(0)) open();
        stream.close();
      }
      // A 1.x client's send rejects with the refusal's text: the caller of the third request sees its error.
      const client = new ClientNow({ name: "sdk-now", version: "1" });
      await client.connect(new SseNow(new URL(handle.url)));
      try {
        let settledCount = 0;
        const outcomes = [1, 2, 3].map(() =>
          client
            .callTool({ name: "wait", arguments: {} })
            .then(
              () => "answered",
              (error: unknown) => String(error),
            )
            .finally(() => settledCount++),
        );
        // Held until all three arrived: two run and the third was refused.
        assert.ok(await eventually(() => gates.length === 2 && settledCount === 1, 10_000), "two requests run, one was refused");
        for (const open of gates.splice(0)) open();
        const settled = await Promise.all(outcomes);
        assert.equal(settled.filter((outcome) => outcome === "answered").length, 2);
        assert.match(
          settled.find((outcome) => outcome !== "answered")!,
          /HTTP 429.*already has 2 requests running/,
        );
      } finally {
        for (const open of gates.splice(0)) open();
        await client.close();
      }
    });
  });

  it("an HTTP+SSE answer over maxBufferedBytes reaches a client that reads it, and the session goes on", SLOW, async () => {
    await withServer({}, async (handle, server) => {
      const big = "b".repeat(2 * 1024 * 1024);
      server.addTool({ name: "big", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: big }] }));
      const client = new ClientNow({ name: "sdk-now", version: "1" });
      await client.connect(new SseNow(new URL(handle.url)));
      try {
        const result = (await client.callTool({ name: "big", arguments: {} }, undefined, { timeout: 30_000 })) as { content: Array<{ text: string }> };
        assert.equal(result.content[0]!.text.length, big.length, "the whole answer");
        assert.deepEqual(
          (await client.listTools()).tools.map((tool) => tool.name),
          ["big"],
          "the same session serves on",
        );
        assert.equal(server.legacySessions.size, 1);
      } finally {
        await client.close();
      }
    });
  });

  it("an HTTP+SSE answer that does not fit a stream whose client has not read is an error to its request; the stream stays", SLOW, async () => {
    await withServer({}, async (handle, server) => {
      server.addTool({ name: "big", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "b".repeat(2 * 1024 * 1024) }] }));
      const stream = await openRaw(handle.url);
      try {
        await postTo(stream.endpoint, { jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE });
        // Nothing is read meanwhile: the kernel's buffers fill, then the server's.
        const calls = 16;
        for (let id = 1; id <= calls; id++) {
          const posted = await postTo(stream.endpoint, { jsonrpc: "2.0", id, method: "tools/call", params: { name: "big", arguments: {} } });
          assert.equal(posted.status, 202);
        }
        const outcomes = new Map<unknown, string>();
        for (let read = 0; read < 2 * calls && outcomes.size < calls; read++) {
          const event = await stream.next();
          assert.ok(event !== undefined, `the stream stayed open (${outcomes.size} answers read)`);
          const message = JSON.parse(event.data) as { id: unknown; result?: unknown; error?: { message: string } };
          if (message.id !== 0) outcomes.set(message.id, message.error === undefined ? "answered" : message.error.message);
        }
        const errors = [...outcomes.values()].filter((outcome) => outcome !== "answered");
        assert.equal(outcomes.size, calls, "every request was answered");
        assert.ok(errors.length > 0 && errors.length < calls, `some answers whole, the others refused (${errors.length} of ${calls})`);
        for (const error of errors) assert.match(error, /more than this event stream may hold while its client has not read/);
        await postTo(stream.endpoint, { jsonrpc: "2.0", id: "after", method: "ping" });
        assert.equal(JSON.parse((await stream.next())!.data).id, "after", "the session serves on");
      } finally {
        stream.close();
      }
    });
  });

  it("a GET resuming a stream (Last-Event-ID), one without text/event-stream by name, and any GET on a modern-only server stay 405", SLOW, async () => {
    await withServer({}, async (handle) => {
      assert.equal((await fetch(handle.url, { headers: { accept: "text/event-stream", "last-event-id": "0-1" } })).status, 405);
      assert.equal((await fetch(handle.url, { headers: { accept: "*/*" } })).status, 405);
    });
    await withServer(false, async (handle) => {
      assert.equal((await fetch(handle.url, { headers: { accept: "text/event-stream" } })).status, 405);
    });
  });

  it("closing the server ends every stream, initialized or not", SLOW, async () => {
    // A deadline past the test's own: only the closing server can end the waiting stream in time.
    const server = createServer({ name: "closing", version: "1.0.0", legacy: { sseInitializeMs: 120_000 } });
    const handle = await serveHttp(server);
    try {
      const [waiting, serving] = [await openRaw(handle.url), await openRaw(handle.url)];
      assert.equal((await postTo(serving.endpoint, { jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE })).status, 202);
      await serving.next();
      await server.close();
      assert.equal(await serving.next(), undefined, "the session's stream ended");
      assert.equal(await waiting.next(), undefined, "the stream waiting for initialize ended too");
      assert.equal((await fetch(handle.url, { headers: { accept: "text/event-stream" } })).status, 503, "no stream opens on a closing server");
    } finally {
      await handle.close();
    }
  });
});

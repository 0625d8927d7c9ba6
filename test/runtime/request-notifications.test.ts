/**
 * Request-scoped notifications: progress only with a progressToken, log messages only at or
 * above the request's log level, everything on the request's own response before its
 * result, nothing after it. Checked on the in-memory transports and over Streamable HTTP.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer, type RequestContext, type Server } from "../../packages/runtime/src/index.js";
import { sseMessages } from "../../packages/runtime/src/transports/http-client.js";
import { serveHttp, type HttpServerHandle } from "../../packages/runtime/src/transports/http-server.js";
import { MEMORY_KINDS, Peer, REQUEST_META, until } from "../support/runtime-peer.js";
import { mcpHeaders } from "./transports/http-helpers.js";

const T = { timeout: 20_000 };
const LOG_LEVEL = "io.modelcontextprotocol/logLevel";
const LEVELS_LOW_TO_HIGH = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;

/** What the `report` tool is told to send. */
interface ReportArgs {
  progress?: number[];
  levels?: string[];
}

/**
 * A server with one tool, `report`, that sends the progress values and log levels it is
 * given and answers with each send's result; every context is kept, for sends after the result.
 */
function reportingServer(): { server: Server; contexts: RequestContext[] } {
  const contexts: RequestContext[] = [];
  const server = createServer({ name: "reporting", version: "1.0.0" });
  server.addTool({ name: "report", inputSchema: { type: "object" } }, (args, context) => {
    contexts.push(context);
    const { progress = [], levels = [] } = args as ReportArgs;
    const sent = {
      progress: progress.map((value) => context.sendProgress({ progress: value, total: 100 })),
      logs: levels.map((level) => context.sendLog({ level: level as "info", data: `at ${level}` })),
    };
    return { content: [{ type: "text", text: JSON.stringify(sent) }] };
  });
  return { server, contexts };
}

function callParams(args: ReportArgs, meta: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: "report", arguments: args, _meta: { ...REQUEST_META, ...meta } };
}

const reasons = (results: Array<{ ok: boolean; reason?: string }>) => results.map((result) => (result.ok ? "sent" : result.reason));

for (const kind of MEMORY_KINDS) {
  describe(`request-scoped notifications (${kind} transport)`, () => {
    it("progress is sent only with a progressToken, stamped with it, increasing, before the result", T, async () => {
      const { server } = reportingServer();
      const peer = await Peer.connect(server, kind);
      const without = await peer.request("tools/call", callParams({ progress: [10, 20] }), "no-token");
      assert.deepEqual(reasons(JSON.parse(without.result.content[0].text).progress), ["not-requested", "not-requested"]);
      const withToken = await peer.request("tools/call", callParams({ progress: [0, 50, 50, 40, 100] }, { progressToken: "tok-1" }), "token");
      assert.deepEqual(reasons(JSON.parse(withToken.result.content[0].text).progress), ["sent", "sent", "not-increasing", "not-increasing", "sent"]);
      const progress = peer.messages.filter((m) => m.method === "notifications/progress");
      assert.deepEqual(
        progress.map((m) => m.params),
        [0, 50, 100].map((value) => ({ progress: value, total: 100, progressToken: "tok-1" })),
      );
      const answeredAt = peer.messages.indexOf(withToken);
      assert.ok(
        progress.every((m) => peer.messages.indexOf(m) < answeredAt),
        "every progress notification precedes the result",
      );
      await server.close();
    });

    it("no log message without a logLevel", T, async () => {
      const { server } = reportingServer();
      const peer = await Peer.connect(server, kind);
      const response = await peer.request("tools/call", callParams({ levels: ["emergency", "debug"] }));
      assert.deepEqual(reasons(JSON.parse(response.result.content[0].text).logs), ["not-requested", "not-requested"]);
      await peer.sync();
      assert.equal(
        peer.messages.some((m) => m.method === "notifications/message"),
        false,
      );
      await server.close();
    });

    it("log messages below the requested level are not sent", T, async () => {
      const { server } = reportingServer();
      const peer = await Peer.connect(server, kind);
      const response = await peer.request("tools/call", callParams({ levels: [...LEVELS_LOW_TO_HIGH] }, { [LOG_LEVEL]: "warning" }));
      const results = reasons(JSON.parse(response.result.content[0].text).logs);
      assert.deepEqual(results, ["below-level", "below-level", "below-level", "sent", "sent", "sent", "sent", "sent"]);
      const logs = peer.messages.filter((m) => m.method === "notifications/message");
      assert.deepEqual(
        logs.map((m) => m.params),
        ["warning", "error", "critical", "alert", "emergency"].map((level) => ({ level, data: `at ${level}` })),
      );
      assert.ok(
        logs.every((m) => peer.messages.indexOf(m) < peer.messages.indexOf(response)),
        "every log message precedes the result",
      );
      await server.close();
    });

    it("nothing is sent after the result, nor after a cancel", T, async () => {
      const { server, contexts } = reportingServer();
      let release!: () => void;
      let held: RequestContext | undefined;
      server.setRequestHandler("prompts/list", async (_params, context) => {
        held = context;
        await new Promise<void>((resolve) => (release = resolve));
        return { prompts: [], cacheScope: "private" as const, ttlMs: 0 };
      });
      const peer = await Peer.connect(server, kind);
      const meta = { progressToken: 7, [LOG_LEVEL]: "debug" };
      await peer.request("tools/call", callParams({ progress: [1] }, meta));
      const [answered] = contexts;
      assert.deepEqual(answered.sendProgress({ progress: 2 }), { ok: false, reason: "closed" });
      assert.deepEqual(answered.sendLog({ level: "emergency", data: "late" }), { ok: false, reason: "closed" });

      peer.send("prompts/list", { _meta: { ...REQUEST_META, ...meta } }, "slow");
      await until(() => held !== undefined, "the handler started");
      assert.deepEqual(held!.sendProgress({ progress: 1 }), { ok: true });
      peer.notify("notifications/cancelled", { requestId: "slow" });
      await until(() => held!.signal.aborted, "the cancel reached the handler");
      assert.deepEqual(held!.sendProgress({ progress: 2 }), { ok: false, reason: "closed" });
      release();
      await peer.sync();
      const progress = peer.messages.filter((m) => m.method === "notifications/progress").map((m) => m.params.progress);
      assert.deepEqual(progress, [1, 1], "one progress per request, none after the result or the cancel");
      await server.close();
    });

    it("a log level or progress token of the wrong shape in _meta is answered with -32602", T, async () => {
      const { server, contexts } = reportingServer();
      const peer = await Peer.connect(server, kind);
      for (const meta of [{ [LOG_LEVEL]: "verbose" }, { progressToken: 1.5 }, { progressToken: { id: 1 } }]) {
        const response = await peer.request("tools/call", callParams({}, meta));
        assert.equal(response.error?.code, -32602, JSON.stringify(meta));
      }
      assert.equal(contexts.length, 0, "no handler ran");
      await server.close();
    });
  });
}

/** POSTs one request; resolves with the response's content type and every message in it, in order. */
async function postMessages(url: string, id: number, params: Record<string, unknown>): Promise<{ contentType: string; messages: any[] }> {
  const message = { jsonrpc: "2.0", id, method: "tools/call", params };
  const response = await fetch(url, { method: "POST", headers: mcpHeaders(message), body: JSON.stringify(message) });
  const contentType = response.headers.get("content-type") ?? "";
  if (!contentType.startsWith("text/event-stream")) return { contentType, messages: [await response.json()] };
  const messages: any[] = [];
  for await (const frame of sseMessages(response.body!)) messages.push(JSON.parse(frame));
  return { contentType, messages };
}

describe("request-scoped notifications over Streamable HTTP", () => {
  let handle: HttpServerHandle;
  let contexts: RequestContext[];

  before(async () => {
    const app = reportingServer();
    contexts = app.contexts;
    handle = await serveHttp(app.server, { host: "127.0.0.1", port: 0 });
  });
  after(() => handle?.close());

  it("progress is sent only with a progressToken: a plain JSON answer without one", T, async () => {
    const { contentType, messages } = await postMessages(handle.url, 1, callParams({ progress: [10] }));
    assert.match(contentType, /^application\/json/);
    assert.equal(messages.length, 1);
    assert.deepEqual(reasons(JSON.parse(messages[0].result.content[0].text).progress), ["not-requested"]);
  });

  it("no log message without a logLevel: a plain JSON answer", T, async () => {
    const { contentType, messages } = await postMessages(handle.url, 2, callParams({ levels: ["emergency"] }));
    assert.match(contentType, /^application\/json/);
    assert.deepEqual(reasons(JSON.parse(messages[0].result.content[0].text).logs), ["not-requested"]);
  });

  it("log messages below the requested level are not sent; what is sent turns the answer into SSE, result last", T, async () => {
    const meta = { progressToken: "http-tok", [LOG_LEVEL]: "error" };
    const { contentType, messages } = await postMessages(handle.url, 3, callParams({ progress: [0, 100], levels: ["info", "error", "alert"] }, meta));
    assert.match(contentType, /^text\/event-stream/);
    assert.deepEqual(
      messages.map((m) => m.method ?? `result ${m.id}`),
      ["notifications/progress", "notifications/progress", "notifications/message", "notifications/message", "result 3"],
    );
    assert.deepEqual(
      messages.slice(0, 2).map((m) => m.params.progressToken),
      ["http-tok", "http-tok"],
    );
    assert.deepEqual(
      messages.slice(2, 4).map((m) => m.params.level),
      ["error", "alert"],
    );
  });

  it("nothing is sent after the result", T, async () => {
    const before = contexts.length;
    const { messages } = await postMessages(handle.url, 4, callParams({ progress: [5] }, { progressToken: 4, [LOG_LEVEL]: "debug" }));
    assert.equal(messages.at(-1).id, 4);
    const context = contexts[before];
    assert.deepEqual(context.sendProgress({ progress: 6 }), { ok: false, reason: "closed" });
    assert.deepEqual(context.sendLog({ level: "error", data: "late" }), { ok: false, reason: "closed" });
  });
});

describe("request-scoped notifications reach the official client over Streamable HTTP", () => {
  it("progress reaches onprogress and log messages at or above the requested level reach the handler, before the result", { timeout: 60_000 }, async () => {
    const { server } = reportingServer();
    const handle = await serveHttp(server, { host: "127.0.0.1", port: 0 });
    const client = new Client({ name: "request-notifications", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      const heard: string[] = [];
      client.setNotificationHandler("notifications/message", (n) => void heard.push(`log ${n.params.level}`));
      const result = await client.callTool(
        { name: "report", arguments: { progress: [0, 50, 100], levels: ["info", "warning", "critical"] }, _meta: { [LOG_LEVEL]: "warning" } },
        { onprogress: (p) => void heard.push(`progress ${p.progress}/${p.total}`) },
      );
      heard.push("result");
      const sent = JSON.parse((result.content as Array<{ text: string }>)[0].text);
      assert.deepEqual(reasons(sent.logs), ["below-level", "sent", "sent"]);
      assert.deepEqual(heard, ["progress 0/100", "progress 50/100", "progress 100/100", "log warning", "log critical", "result"]);
    } finally {
      await client.close();
      await handle.close();
    }
  });
});

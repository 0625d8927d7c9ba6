/**
 * Legacy sessions over Streamable HTTP, at the wire: the session id, 404 for an unknown
 * one, DELETE, the GET notification stream, the session limit and idle expiry, and a
 * modern-only server's answer to `initialize`.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer, InProcessEventSource } from "../../../packages/runtime/src/index.js";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { createFanoutServer, type FanoutTopics } from "../../support/fanout-app.js";
import { recordingHandler } from "../../support/recording-handler.js";
import { until } from "../../support/runtime-peer.js";

const INITIALIZE = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "wire", version: "1" } };
const ACCEPT = "application/json, text/event-stream";

async function post(handle: HttpServerHandle, body: unknown, sessionId?: string): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: ACCEPT };
  if (sessionId !== undefined) headers["mcp-session-id"] = sessionId;
  return fetch(handle.url, { method: "POST", headers, body: JSON.stringify(body) });
}

async function initialize(handle: HttpServerHandle): Promise<string> {
  const response = await post(handle, { jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE });
  assert.equal(response.status, 200);
  const id = response.headers.get("mcp-session-id");
  assert.ok(id, "the answer carries Mcp-Session-Id");
  await response.json();
  const initialized = await post(handle, { jsonrpc: "2.0", method: "notifications/initialized" }, id);
  assert.equal(initialized.status, 202);
  return id;
}

describe("legacy sessions over Streamable HTTP", () => {
  it("a request naming an unknown session gets 404; DELETE ends a session, after which its id is unknown", async () => {
    const server = createServer({ name: "wire", version: "1" });
    const { handler, log } = recordingHandler();
    server.addSubscriptionHandler(handler);
    const handle = await serveHttp(server);
    try {
      const unknown = await post(handle, { jsonrpc: "2.0", id: 2, method: "ping" }, "no-such-session");
      assert.equal(unknown.status, 404);
      assert.match(((await unknown.json()) as any).error.message, /initialize/);
      const id = await initialize(handle);
      assert.deepEqual(((await (await post(handle, { jsonrpc: "2.0", id: 2, method: "ping" }, id)).json()) as any).result, {});
      await until(() => log.calls.includes("subscribe"), "the implicit list stream");
      const deleted = await fetch(handle.url, { method: "DELETE", headers: { "mcp-session-id": id } });
      assert.equal(deleted.status, 204);
      assert.equal(log.closes, 1, "handleClose ran once for the implicit stream");
      assert.equal((await post(handle, { jsonrpc: "2.0", id: 3, method: "ping" }, id)).status, 404);
      const other = await initialize(handle);
      const wrongVersion = await fetch(handle.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: ACCEPT, "mcp-session-id": other, "mcp-protocol-version": "1999-01-01" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" }),
      });
      assert.equal(wrongVersion.status, 400, "an MCP-Protocol-Version the session does not speak");
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("the GET stream carries the session's notifications; a second GET is refused", async () => {
    const events = new InProcessEventSource<FanoutTopics>();
    const server = createFanoutServer(events, "wire");
    const handle = await serveHttp(server);
    const abort = new AbortController();
    try {
      const id = await initialize(handle);
      const stream = await fetch(handle.url, { headers: { accept: "text/event-stream", "mcp-session-id": id }, signal: abort.signal });
      assert.equal(stream.status, 200);
      assert.equal(stream.headers.get("content-type"), "text/event-stream");
      const second = await fetch(handle.url, { headers: { accept: "text/event-stream", "mcp-session-id": id } });
      assert.equal(second.status, 409);
      await events.publish("tools", { origin: "test" });
      const reader = stream.body!.getReader();
      let text = "";
      // The stream opens with a priming event (an id, no data); the notification follows.
      while (!text.includes("list_changed")) text += new TextDecoder().decode((await reader.read()).value);
      assert.match(text, /"method":"notifications\/tools\/list_changed"/);
      assert.doesNotMatch(text, /subscriptionId/);
    } finally {
      abort.abort();
      await handle.close();
      await server.close();
    }
  });

  it("notifications between initialized and the first GET are kept, one list change per kind and one update per subscribed URI, and the first GET delivers them", async () => {
    const events = new InProcessEventSource<FanoutTopics>();
    const joined = new Set<string>();
    const subscribe = events.subscribe.bind(events);
    events.subscribe = (topic, listener) => (joined.add(topic), subscribe(topic, listener));
    const server = createFanoutServer(events, "wire");
    const handle = await serveHttp(server);
    try {
      const id = await initialize(handle);
      const subscribed = await post(handle, { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "res://a" } }, id);
      assert.deepEqual(((await subscribed.json()) as any).result, {});
      await until(() => joined.has("tools") && joined.has("prompts") && joined.has("resource:res://a"), "the implicit streams joined their topics");
      // Before any GET: three tool list changes, two prompt list changes, two updates of one resource.
      for (let i = 0; i < 3; i++) await events.publish("tools", { origin: "test" });
      for (let i = 0; i < 2; i++) await events.publish("prompts", { origin: "test" });
      for (let i = 0; i < 2; i++) await events.publish("resource:res://a", { origin: "test", uri: "res://a" });
      const stream = await fetch(handle.url, { headers: { accept: "text/event-stream", "mcp-session-id": id } });
      assert.equal(stream.status, 200);
      await events.publish("tools", { origin: "live" }); // one more once the stream is open
      // DELETE ends the session and with it the stream, so the whole stream can be read.
      assert.equal((await fetch(handle.url, { method: "DELETE", headers: { "mcp-session-id": id } })).status, 204);
      const text = await stream.text();
      const count = (pattern: RegExp) => text.match(new RegExp(pattern, "g"))?.length ?? 0;
      assert.equal(count(/"method":"notifications\/tools\/list_changed"/), 2, "one kept tool list change, then the live one");
      assert.equal(count(/"method":"notifications\/prompts\/list_changed"/), 1, "one kept prompt list change");
      assert.equal(count(/"method":"notifications\/resources\/updated","params":\{"uri":"res:\/\/a"\}/), 1, "one kept update of res://a");
      assert.ok(text.indexOf("retry:") < text.indexOf("list_changed"), "the kept notifications follow the priming event");
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("a session flood stops at the limit with 503, and the count stays there", async () => {
    const server = createServer({ name: "flood", version: "1", legacy: { maxSessions: 3, maxSessionsPerClient: 3 } });
    const handle = await serveHttp(server);
    try {
      for (let i = 0; i < 3; i++) await initialize(handle);
      for (let i = 0; i < 5; i++) {
        const refused = await post(handle, { jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE });
        assert.equal(refused.status, 503);
        assert.match(((await refused.json()) as any).error.message, /limit of 3 legacy sessions/);
        assert.equal(refused.headers.get("mcp-session-id"), null);
      }
      assert.equal(server.legacySessions.size, 3);
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("an idle session expires and its id then gets 404", async () => {
    const server = createServer({ name: "idle", version: "1", legacy: { idleMs: 300 } });
    const handle = await serveHttp(server);
    try {
      const id = await initialize(handle);
      await until(() => server.legacySessions.size === 0, "the idle session to expire");
      assert.equal((await post(handle, { jsonrpc: "2.0", id: 2, method: "ping" }, id)).status, 404);
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("a version the server does not serve opens a session at the newest one it serves", async () => {
    const server = createServer({ name: "versions", version: "1" });
    const handle = await serveHttp(server);
    try {
      const response = await post(handle, { jsonrpc: "2.0", id: 1, method: "initialize", params: { ...INITIALIZE, protocolVersion: "1999-01-01" } });
      assert.equal(response.status, 200);
      const { result } = (await response.json()) as any;
      assert.equal(result.protocolVersion, "2025-11-25");
      assert.ok(response.headers.get("mcp-session-id"));
      assert.equal(server.legacySessions.size, 1);
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("a modern-only server answers initialize with the versions it speaks", async () => {
    const server = createServer({ name: "modern", version: "1", legacy: false });
    const handle = await serveHttp(server);
    try {
      const response = await post(handle, { jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE });
      assert.equal(response.status, 400);
      const { error } = (await response.json()) as any;
      assert.deepEqual(error.data.supported, ["2026-07-28"]);
      assert.match(error.message, /2026-07-28/);
      assert.equal(response.headers.get("mcp-session-id"), null);
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("a refused initialize opens no session: 400 and no Mcp-Session-Id", async () => {
    const server = createServer({ name: "refused", version: "1" });
    const handle = await serveHttp(server);
    try {
      for (const params of [undefined, { protocolVersion: "2025-11-25" }]) {
        const refused = await post(handle, { jsonrpc: "2.0", id: 1, method: "initialize", ...(params === undefined ? {} : { params }) });
        assert.equal(refused.status, 400);
        assert.equal(refused.headers.get("mcp-session-id"), null);
        assert.equal(((await refused.json()) as any).error.code, -32602);
      }
      assert.equal(server.legacySessions.size, 0);
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("a session belongs to the principal that opened it: another one gets 404", async () => {
    const server = createServer({ name: "owned", version: "1" });
    const handle = await serveHttp(server, { authenticate: (req) => req.headers.authorization });
    try {
      const opened = await fetch(handle.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: ACCEPT, authorization: "alice" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE }),
      });
      const id = opened.headers.get("mcp-session-id")!;
      await opened.json();
      const ping = (who: string) =>
        fetch(handle.url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: ACCEPT, authorization: who, "mcp-session-id": id },
          body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
        });
      assert.equal((await ping("mallory")).status, 404);
      assert.equal((await ping("alice")).status, 200);
    } finally {
      await handle.close();
      await server.close();
    }
  });
});

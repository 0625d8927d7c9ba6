/**
 * What one client may hold through legacy HTTP sessions, and what one session keeps: a
 * client's share of sessions (keyed as listen slots are: the principal here, since every
 * test client shares 127.0.0.1), its share of listen slots across its sessions' implicit
 * streams, the silence bound an open GET stream cannot dodge, and the bytes a session
 * keeps of its `initialize` and its subscriptions.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer, type LegacyOptions, type RuntimeEvent, type ServerLimits } from "../../../packages/runtime/src/index.js";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { LEGACY_INITIALIZE, SseMessages } from "../../support/legacy-peer.js";
import { recordingHandler } from "../../support/recording-handler.js";

const ACCEPT = "application/json, text/event-stream";

async function start(legacy: LegacyOptions, limits?: ServerLimits) {
  const events: RuntimeEvent[] = [];
  const server = createServer({ name: "bounds", version: "1", legacy, onEvent: (event) => events.push(event), ...(limits === undefined ? {} : { limits }) });
  server.addSubscriptionHandler(recordingHandler().handler);
  // Each test client names itself in a header: the principal its sessions and streams count against.
  const handle = await serveHttp(server, { authenticate: (req) => req.headers["x-client"] });
  return { server, handle, events };
}

function post(handle: HttpServerHandle, client: string, body: unknown, sessionId?: string): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: ACCEPT, "x-client": client };
  if (sessionId !== undefined) headers["mcp-session-id"] = sessionId;
  return fetch(handle.url, { method: "POST", headers, body: JSON.stringify(body) });
}

function initialize(handle: HttpServerHandle, client: string, params: Record<string, unknown> = LEGACY_INITIALIZE): Promise<Response> {
  return post(handle, client, { jsonrpc: "2.0", id: 1, method: "initialize", params });
}

async function open(handle: HttpServerHandle, client: string): Promise<string> {
  const response = await initialize(handle, client);
  assert.equal(response.status, 200, await response.clone().text());
  await response.json();
  const id = response.headers.get("mcp-session-id")!;
  await (await post(handle, client, { jsonrpc: "2.0", method: "notifications/initialized" }, id)).text();
  return id;
}

async function call(handle: HttpServerHandle, client: string, sessionId: string, method: string, params: Record<string, unknown>): Promise<any> {
  const messages = new SseMessages(await post(handle, client, { jsonrpc: "2.0", id: 7, method, params }, sessionId));
  return messages.next((frame) => frame["id"] === 7);
}

describe("legacy session bounds", () => {
  it("maxSessionsPerClient: a client at its share is refused with 429 naming it, while another client is still served", async () => {
    const { server, handle } = await start({ maxSessions: 10, maxSessionsPerClient: 2 });
    try {
      const first = await open(handle, "alice");
      await open(handle, "alice");
      const refused = await initialize(handle, "alice");
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get("mcp-session-id"), null);
      assert.match(((await refused.json()) as any).error.message, /already has 2 legacy sessions open, its share/);
      await open(handle, "bob");
      assert.equal(server.legacySessions.size, 3);
      // Ending one of its sessions gives the client its room back.
      assert.equal((await fetch(handle.url, { method: "DELETE", headers: { "mcp-session-id": first, "x-client": "alice" } })).status, 204);
      await open(handle, "alice");
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("sessionHeadroom: near maxSessions only clients holding fewer than four may initialize, so a new client is served (503 for the rest)", async () => {
    const { server, handle } = await start({ maxSessions: 10, maxSessionsPerClient: 10, sessionHeadroom: 3 });
    try {
      for (let i = 0; i < 7; i++) await open(handle, "alice");
      const refused = await initialize(handle, "alice");
      assert.equal(refused.status, 503, "alice holds 7 of 10: the last 3 are kept for newcomers");
      assert.equal(refused.headers.get("mcp-session-id"), null);
      assert.match(((await refused.json()) as any).error.message, /nearly full of legacy sessions .* fewer than 4/);
      for (let i = 0; i < 3; i++) await open(handle, "bob");
      assert.equal(server.legacySessions.size, 10);
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("maxSessionsPerClient defaults to a tenth of maxSessions", async () => {
    const { server, handle } = await start({ maxSessions: 20 });
    try {
      assert.equal(server.legacySessions.maxSessionsPerClient, 2);
      await open(handle, "alice");
      await open(handle, "alice");
      assert.equal((await initialize(handle, "alice")).status, 429);
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("maxSilentMs: a session whose client sends nothing ends even while its GET stream is open", async () => {
    const { server, handle } = await start({ maxSilentMs: 100 });
    try {
      const id = await open(handle, "alice");
      const stream = new SseMessages(await fetch(handle.url, { headers: { accept: "text/event-stream", "mcp-session-id": id, "x-client": "alice" } }));
      // The stream ends when the session does: nothing but the priming event ever arrives.
      assert.equal(await stream.next((frame) => "method" in frame), undefined);
      assert.equal(server.legacySessions.size, 0);
      assert.equal((await post(handle, "alice", { jsonrpc: "2.0", id: 2, method: "ping" }, id)).status, 404);
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("maxStreamsPerClient: a session's implicit streams count toward its client's share of listen slots, across its sessions", async () => {
    const { server, handle, events } = await start({}, { maxStreamsPerClient: 4 });
    try {
      // Each session's list stream takes one slot; two subscriptions fill alice's four.
      const one = await open(handle, "alice");
      const two = await open(handle, "alice");
      assert.deepEqual((await call(handle, "alice", one, "resources/subscribe", { uri: "res://a" })).result, {});
      assert.deepEqual((await call(handle, "alice", two, "resources/subscribe", { uri: "res://b" })).result, {});
      const refused = await call(handle, "alice", two, "resources/subscribe", { uri: "res://c" });
      assert.match(refused.error.message, /already has 4 open subscription streams, its share/);
      // A third session of alice's finds no slot for its list stream: it is served without one, and the operator is told.
      const three = await open(handle, "alice");
      const rejected = events.find((event) => event.type === "stream-rejected");
      assert.deepEqual(rejected, {
        type: "stream-rejected",
        id: `${three}:list_changed`,
        reason: "This client already has 4 open subscription streams, its share of the server; close one before listening again",
      });
      const bob = await open(handle, "bob");
      assert.deepEqual((await call(handle, "bob", bob, "resources/subscribe", { uri: "res://c" })).result, {});
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("maxInitializeBytes: an initialize whose capabilities and clientInfo exceed it is refused with -32602 naming it, and opens no session", async () => {
    const { server, handle } = await start({ maxInitializeBytes: 1024 });
    try {
      const large = { ...LEGACY_INITIALIZE, capabilities: { experimental: { blob: "x".repeat(2048) } } };
      const refused = await initialize(handle, "alice", large);
      assert.equal(refused.status, 400);
      assert.equal(refused.headers.get("mcp-session-id"), null);
      const { error } = (await refused.json()) as any;
      assert.equal(error.code, -32602);
      assert.match(error.message, /limit of 1024/);
      assert.equal(server.legacySessions.size, 0);
      await open(handle, "alice"); // a small one is served
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("maxSubscriptionUriLength and maxSubscriptions: a longer URI is -32602, one more subscription is -32600, each naming its bound", async () => {
    const { server, handle } = await start({ maxSubscriptions: 2, maxSubscriptionUriLength: 64 });
    try {
      const id = await open(handle, "alice");
      const long = await call(handle, "alice", id, "resources/subscribe", { uri: `res://${"a".repeat(64)}` });
      assert.equal(long.error.code, -32602);
      assert.match(long.error.message, /limit of 64 characters/);
      assert.deepEqual((await call(handle, "alice", id, "resources/subscribe", { uri: "res://a" })).result, {});
      assert.deepEqual((await call(handle, "alice", id, "resources/subscribe", { uri: "res://b" })).result, {});
      const third = await call(handle, "alice", id, "resources/subscribe", { uri: "res://c" });
      assert.equal(third.error.code, -32600);
      assert.match(third.error.message, /already holds 2 subscriptions/);
      // Subscribing again to a held URI is no new subscription; unsubscribing makes room.
      assert.deepEqual((await call(handle, "alice", id, "resources/subscribe", { uri: "res://a" })).result, {});
      assert.deepEqual((await call(handle, "alice", id, "resources/unsubscribe", { uri: "res://a" })).result, {});
      assert.deepEqual((await call(handle, "alice", id, "resources/subscribe", { uri: "res://c" })).result, {});
    } finally {
      await handle.close();
      await server.close();
    }
  });
});

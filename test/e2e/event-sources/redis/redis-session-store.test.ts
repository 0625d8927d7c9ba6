/**
 * The Redis session store against a real redis-server: the window a GET stream resumes
 * from (bounded per session, a resume from before a dropped event refused), one event per
 * cause, and two servers (replicas) in this process sharing sessions through it, on
 * loopback: DELETE and idle expiry end a session on both, and an unknown id is refused by both.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createClient } from "redis";
import { connectRedisSessionStore, type RedisSessionStore } from "../../../../templates/event-sources/redis/redis-session-store.js";
import { createServer, type JsonRpcResponse, type LegacySessionStore, type SessionRecord } from "../../../../packages/runtime/src/index.js";
import { serveHttp, type HttpServerHandle } from "../../../../packages/runtime/src/transports/http-server.js";
import { LEGACY, openLegacySession, postLegacy } from "../../../support/legacy-peer.js";
import { eventually } from "../../../support/eventually.js";
import { SseReader } from "../../../support/sse-events.js";
import { startRedisServer, type RedisServer } from "../../../support/redis-server.js";

const KEEPING = { idleMs: 60_000, maxSilentMs: 60_000, maxEvents: 3, maxBytes: 1024 };
const record = (id: string): SessionRecord => ({ id, version: LEGACY, meta: {}, ready: true, subscriptions: [] });

describe("the Redis session store", { timeout: 60_000 }, () => {
  let redis: RedisServer;
  const stores: Array<{ close(): Promise<void> }> = [];
  const handles: HttpServerHandle[] = [];
  /** What each `wait` call saw: whether its request was cancelled. */
  const cancellations: boolean[] = [];
  const open = async () => {
    const store: RedisSessionStore<SessionRecord, JsonRpcResponse> = await connectRedisSessionStore({ url: redis.url });
    stores.push(store);
    return store;
  };
  /** One replica: a server whose legacy sessions live in its own connection to the shared Redis. */
  const replica = async (idleMs?: number) => (await replicaServer(idleMs)).handle;
  const replicaServer = async (idleMs?: number) => {
    const store: LegacySessionStore = await open();
    const server = createServer({ name: "replica", version: "1.0.0", legacy: { store, ...(idleMs === undefined ? {} : { idleMs }) } });
    server.addTool({ name: "echo", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "echo" }] }));
    // Runs until its request is cancelled (or 10 s pass), and says which.
    server.addTool({ name: "wait", inputSchema: { type: "object" } }, async (_args, context) => {
      const aborted = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 10_000);
        context.signal.addEventListener("abort", () => (clearTimeout(timer), resolve(true)), { once: true });
      });
      cancellations.push(aborted);
      return { content: [{ type: "text", text: aborted ? "cancelled" : "waited" }] };
    });
    const handle = await serveHttp(server, { port: 0 });
    handles.push(handle);
    return { handle, server };
  };
  const call = (handle: HttpServerHandle, session: string) =>
    postLegacy(handle, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: {} } }, session);

  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    for (const handle of handles) await handle.close();
    for (const store of stores) await store.close();
    await redis?.stop();
  });

  test("the replay window is bounded per session; a resume from before a dropped event is refused, one after it gets what followed", async () => {
    const store = await open();
    await store.create(record("window"), KEEPING);
    const seqs: Array<number | false | undefined> = [];
    for (let n = 1; n <= 5; n++) seqs.push(await store.append("window", JSON.stringify({ n }), KEEPING));
    assert.deepEqual(seqs, [1, 2, 3, 4, 5]);
    assert.equal(await store.after("window", 1), undefined, "events 1 and 2 were dropped (3 kept)");
    assert.deepEqual(
      await store.after("window", 2),
      [3, 4, 5].map((n) => ({ seq: n, json: JSON.stringify({ n }) })),
    );
    assert.equal(await store.latest("window"), 5);
    // Bytes bound too: one event larger than the window is numbered (and published) but not kept.
    assert.equal(await store.append("window", "x".repeat(2048), KEEPING), 6);
    assert.equal(await store.after("window", 5), undefined);
  });

  test("one replica writes a session's events: another's are refused while it runs, and it takes them over once the writer stops", async () => {
    const [a, b] = [await open(), await open()];
    await a.create(record("written"), KEEPING);
    assert.equal(await a.append("written", '{"n":1}', KEEPING), 1);
    assert.equal(await b.append("written", '{"n":2}', KEEPING), false, "B is not the writer");
    assert.deepEqual([...(await b.claim(["written", "never-opened"]))], [], "A runs: nothing is taken");
    await a.close();
    assert.deepEqual([...(await b.claim(["written", "never-opened"]))], ["written"], "A stopped: B takes its session, and only what exists");
    assert.equal(await b.append("written", '{"n":2}', KEEPING), 2);
    assert.deepEqual([...(await b.claim(["written"]))], [], "B is the writer already");
    assert.equal(await b.append("gone", "{}", KEEPING), undefined, "a session that does not exist keeps nothing");
  });

  test("every key a session's writes make expires within its idle time, however many events it takes, from whichever writer", async () => {
    const [a, b] = [await open(), await open()];
    await a.create(record("ttl"), KEEPING);
    // Past the window's 3 events, so it is trimmed; written by A, then by B once it took A's place.
    for (let n = 1; n <= 5; n++) {
      if (n === 3) await a.close().then(() => b.claim(["ttl"]));
      await (n < 3 ? a : b).append("ttl", JSON.stringify({ n }), KEEPING);
    }
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      const keys = await raw.keys("*{ttl}*");
      assert.equal(keys.length, 2, `the record and the window: ${keys.join(", ")}`);
      for (const key of keys) {
        const ttl = await raw.pTTL(key);
        assert.ok(ttl > 0 && ttl <= KEEPING.idleMs, `${key} expires in ${ttl} ms`);
      }
    } finally {
      await raw.close();
    }
  });

  test("DELETE through one replica ends the session on every replica, and its GET stream on the other closes", async () => {
    const [a, b] = [await replica(), await replica()];
    const session = await openLegacySession(a);
    assert.equal((await call(b, session)).status, 200, "B serves the session A opened");
    const stream = await fetch(a.url, { headers: { accept: "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": LEGACY } });
    assert.equal(stream.status, 200);
    const events = new SseReader(stream);
    assert.match((await events.next())?.id ?? "", /^0-\d+$/, "the priming event names the standalone stream");
    const deleted = await fetch(b.url, { method: "DELETE", headers: { "mcp-session-id": session } });
    assert.equal(deleted.status, 204);
    assert.equal(await events.next(), undefined, "A's GET stream ended");
    assert.equal((await call(a, session)).status, 404);
    assert.equal((await call(b, session)).status, 404);
  });

  test("a replica holds a copy only of the sessions it serves, and lets it go once it went unused for a sweep", async () => {
    const [a, b] = [await replicaServer(1000), await replicaServer(1000)];
    const sessions = await Promise.all([1, 2, 3].map(() => openLegacySession(a.handle)));
    assert.equal(b.server.legacySessions.size, 0, "B holds none of the sessions A opened");
    assert.equal((await call(b.handle, sessions[0]!)).status, 200);
    assert.equal(b.server.legacySessions.size, 1, "B holds the one it served");
    // A keeps the sessions alive with requests; B's copy, unused, goes within two sweeps (half of idleMs each).
    const letGo = eventually(async () => {
      await Promise.all(sessions.map((session) => call(a.handle, session)));
      return b.server.legacySessions.size === 0;
    }, 5000);
    assert.ok(await letGo, "B let its copy go");
    assert.equal(a.server.legacySessions.size, 3, "A, their writer, keeps all three");
    assert.equal((await call(b.handle, sessions[0]!)).status, 200, "and B serves it again from the store");
  });

  test("idle expiry ends a session on every replica", async () => {
    const [a, b] = [await replica(300), await replica(300)];
    const session = await openLegacySession(a);
    assert.equal((await call(b, session)).status, 200);
    // Nothing names the session now (a request would keep it): well past idleMs, both replicas have let it go.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal((await call(a, session)).status, 404);
    assert.equal((await call(b, session)).status, 404);
  });

  test("a notifications/cancelled POSTed to another replica aborts the request running on the one it was sent to", async () => {
    const [a, b] = [await replica(), await replica()];
    const session = await openLegacySession(a);
    const running = postLegacy(a, { jsonrpc: "2.0", id: 42, method: "tools/call", params: { name: "wait", arguments: {} } }, session);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the call has started on A
    const notified = await postLegacy(b, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 42, reason: "changed my mind" } }, session);
    assert.equal(notified.status, 202);
    await (await running).text(); // a cancelled request gets no answer: its response ends empty
    assert.deepEqual(cancellations, [true]);
  });

  test("session ids are unguessable: random UUIDs, and an id no replica issued is refused by every one", async () => {
    const [a, b] = [await replica(), await replica()];
    const ids = await Promise.all([openLegacySession(a), openLegacySession(b)]);
    for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const guessed = ids[0]!.replace(/.$/, (last) => (last === "0" ? "1" : "0"));
    for (const handle of [a, b]) assert.equal((await call(handle, guessed)).status, 404);
  });

  test("a session a broker restarted empty lost is stored again by the replicas holding it, and served by both", async () => {
    const [a, b] = [await replica(), await replica()];
    const session = await openLegacySession(a);
    assert.equal((await call(b, session)).status, 200, "served by the other replica before");
    const reader = await open();
    await redis.kill();
    await redis.restart(); // no persistence: it comes back empty
    assert.ok(await eventually(async () => (await reader.load(session).catch(() => undefined)) !== undefined, 20_000), "the session is in the store again");
    for (const handle of [a, b]) assert.equal((await call(handle, session)).status, 200);
  });

  test("a change the store cannot take (Redis down) is refused with -32603 naming the store; Redis comes back for whatever runs next", async () => {
    const a = await replica();
    const session = await openLegacySession(a);
    await redis.kill();
    try {
      const refused = await postLegacy(a, { jsonrpc: "2.0", id: 7, method: "logging/setLevel", params: { level: "error" } }, session);
      const body = (await refused.json()) as { id: number; error?: { code: number; message: string } };
      assert.equal(body.error?.code, -32603);
      assert.match(body.error?.message ?? "", /session store could not be written/);
    } finally {
      await redis.restart();
    }
  });
});

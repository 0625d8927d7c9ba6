/**
 * Per-client share of listen slots: one client cannot hold every slot. A client is the
 * principal the transport vouches for, else the peer address, else the connection; what
 * the client writes in its own `_meta` never decides.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer, type Server } from "../../../packages/runtime/src/index.js";
import { clientKey, StreamSlots } from "../../../packages/runtime/src/subscriptions/slots.js";
import { Peer, SUBSCRIPTION_ID, until } from "../../support/runtime-peer.js";
import { recordingHandler } from "../../support/recording-handler.js";

const ACK = "notifications/subscriptions/acknowledged";
const T = { timeout: 20_000 };

function setup(limits: { maxStreams?: number; maxStreamsPerClient?: number; streamHeadroom?: number; maxListenRequestBytes?: number; maxTotalListenBytes?: number }) {
  const server = createServer({ name: "slots", version: "1.0.0", limits });
  const { handler, log } = recordingHandler();
  server.addSubscriptionHandler(handler);
  return { server, log };
}

/** Sends a listen and returns the ack, or the error response when it was refused. */
async function listen(peer: Peer, id: string, meta: Record<string, unknown> = {}) {
  const _meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, ...meta };
  peer.send("subscriptions/listen", { notifications: { toolsListChanged: true }, _meta }, id);
  return peer.waitFor((m) => (m.method === ACK && m.params._meta[SUBSCRIPTION_ID] === id) || (m.id === id && m.error !== undefined), `the answer to ${id}`);
}

describe("listen slots per client", () => {
  let server: Server;

  it("a principal's listen beyond its share is refused before any ack, other principals still listen", T, async () => {
    const made = setup({ maxStreamsPerClient: 2 });
    server = made.server;
    const alice = await Peer.connect(server, "test", { principal: "alice" });
    const aliceAgain = await Peer.connect(server, "test", { principal: "alice" }); // a second connection, same principal
    const bob = await Peer.connect(server, "test", { principal: "bob" });
    assert.equal((await listen(alice, "a1")).method, ACK);
    assert.equal((await listen(aliceAgain, "a2")).method, ACK);
    const refused = await listen(alice, "a3");
    assert.match(refused.error.message, /already has 2 open subscription streams/);
    assert.equal(
      alice.stream("a3").some((m) => m.method === ACK),
      false,
    );
    assert.equal(made.log.calls.filter((c) => c === "subscribe").length, 2, "subscribe never ran for the refused listen");
    assert.equal((await listen(bob, "b1")).method, ACK, "another principal has its own share");
    alice.notify("notifications/cancelled", { requestId: "a1" });
    await until(() => made.log.closes === 1, "a1 closed");
    assert.equal((await listen(alice, "a4")).method, ACK, "a slot given back can be taken again");
    await server.close();
  });

  it("without a principal each connection is a client; a principal claimed in _meta does not change that", T, async () => {
    const made = setup({ maxStreamsPerClient: 1 });
    server = made.server;
    const first = await Peer.connect(server, "inprocess");
    const second = await Peer.connect(server, "inprocess");
    assert.equal((await listen(first, "f1", { principal: "x" })).method, ACK);
    assert.match((await listen(first, "f2", { principal: "y" })).error.message, /already has 1 open/);
    assert.equal((await listen(second, "s1", { principal: "x" })).method, ACK);
    await server.close();
  });

  it("the server-wide limit still holds across clients, with its own message", T, async () => {
    const made = setup({ maxStreams: 2, maxStreamsPerClient: 2 });
    server = made.server;
    const peers = await Promise.all(["p", "q", "r"].map((principal) => Peer.connect(made.server, "test", { principal })));
    assert.equal((await listen(peers[0]!, "p1")).method, ACK);
    assert.equal((await listen(peers[1]!, "q1")).method, ACK);
    assert.match((await listen(peers[2]!, "r1")).error.message, /limit of 2 open subscription streams; retry later/);
    await server.close();
  });
});

describe("clientKey", () => {
  it("is the principal, else the peer address, else the connection", () => {
    const connection = {};
    assert.equal(clientKey("alice", "10.0.0.1", connection), 'principal:"alice"');
    assert.equal(clientKey({ user: "alice" }, undefined, connection), 'principal:{"user":"alice"}');
    assert.equal(clientKey(undefined, "10.0.0.1", connection), "peer:10.0.0.1");
    assert.equal(clientKey(undefined, undefined, connection), connection);
    assert.equal(clientKey(10n, undefined, connection), connection, "a principal that cannot be keyed falls back");
  });

  it("slots given back make room again, and counts drop to zero", () => {
    const slots = new StreamSlots({ max: 10, maxPerClient: 1 });
    assert.equal(slots.reserve("a"), undefined);
    assert.deepEqual(slots.reserve("a"), { scope: "client", limit: 1 });
    slots.release("a");
    assert.equal(slots.heldBy("a"), 0);
    assert.equal(slots.reserve("a"), undefined);
  });

  it("the headroom rule: the last slots go only to clients holding fewer than four, so a new client is served while others hold their shares", () => {
    const slots = new StreamSlots({ max: 20, maxPerClient: 8, headroom: 6 });
    for (let i = 0; i < 8; i++) assert.equal(slots.reserve("a"), undefined);
    for (let i = 0; i < 6; i++) assert.equal(slots.reserve("b"), undefined);
    assert.deepEqual(slots.reserve("b"), { scope: "headroom", limit: 4 }, "14 of 20 open: b holds 6, no newcomer");
    for (let i = 0; i < 4; i++) assert.equal(slots.reserve("c"), undefined, "a new client takes from the headroom");
    assert.deepEqual(slots.reserve("c"), { scope: "headroom", limit: 4 });
    assert.equal(slots.reserve("d"), undefined);
    assert.equal(slots.reserve("d"), undefined);
    assert.deepEqual(slots.reserve("e"), { scope: "server", limit: 20 }, "the headroom bounds nothing beyond the total");
  });

  it("the headroom defaults to a twentieth of the slots, none for a tiny total", () => {
    assert.equal(new StreamSlots({ max: 10_000, maxPerClient: 64 }).headroom, 500);
    assert.equal(new StreamSlots({ max: 2, maxPerClient: 2 }).headroom, 0);
    assert.equal(new StreamSlots({ max: 100, maxPerClient: 2 }).newcomerBelow, 2, "never above the per-client share");
  });

  it("the bytes streams keep of their requests are bounded together, and given back", () => {
    const slots = new StreamSlots({ max: 10, maxPerClient: 10, maxBytes: 100 });
    assert.equal(slots.reserve("a", 60), undefined);
    assert.deepEqual(slots.reserve("b", 50), { scope: "bytes", limit: 100 });
    assert.equal(slots.reserve("b", 40), undefined);
    slots.release("a", 60);
    assert.equal(slots.keptBytes, 40);
    assert.equal(slots.reserve("b", 50), undefined);
  });
});

describe("what a listen stream keeps of its request", () => {
  it("a listen whose filter and _meta are larger than maxListenRequestBytes is refused with -32602 before any ack; subscribe never runs", T, async () => {
    const made = setup({ maxListenRequestBytes: 4096 });
    const peer = await Peer.connect(made.server, "test", { principal: "p" });
    const refused = await listen(peer, "big", { padding: "x".repeat(4096) });
    assert.equal(refused.error.code, -32602);
    assert.match(refused.error.message, /at most 4096 bytes of its notifications filter and _meta/);
    assert.equal(made.log.calls.filter((c) => c === "subscribe").length, 0);
    assert.equal((await listen(peer, "small")).method, ACK, "a small listen is still served");
    await made.server.close();
  });

  it("what all streams keep is bounded by maxTotalListenBytes: beyond it a listen is refused, and room comes back when one ends", T, async () => {
    const made = setup({ maxListenRequestBytes: 8192, maxTotalListenBytes: 12_000 });
    const peers = await Promise.all(["p", "q"].map((principal) => Peer.connect(made.server, "test", { principal })));
    const padding = "x".repeat(2500); // 5,000 bytes in memory, plus the rest of the request
    assert.equal((await listen(peers[0]!, "p1", { padding })).method, ACK);
    assert.equal((await listen(peers[0]!, "p2", { padding })).method, ACK);
    const refused = await listen(peers[1]!, "q1", { padding });
    assert.match(refused.error.message, /keep 12000 bytes of their requests, its limit/);
    peers[0]!.notify("notifications/cancelled", { requestId: "p1" });
    await until(() => made.log.closes === 1, "p1 closed");
    assert.equal((await listen(peers[1]!, "q2", { padding })).method, ACK);
    await made.server.close();
  });

  it("a client filling the server leaves a new client served (the headroom rule through the server)", T, async () => {
    const made = setup({ maxStreams: 12, maxStreamsPerClient: 6, streamHeadroom: 4 });
    const [a, b, newcomer] = await Promise.all(["a", "b", "new"].map((principal) => Peer.connect(made.server, "test", { principal })));
    for (let n = 0; n < 6; n++) assert.equal((await listen(a!, `a${n}`)).method, ACK);
    for (let n = 0; n < 4; n++) assert.equal((await listen(b!, `b${n}`)).method, ACK);
    // 10 of 12 open, inside the headroom: b holds 4 and is refused although its share is 6.
    assert.match((await listen(b!, "b4")).error.message, /nearly full and keeps its last streams for clients holding fewer than 4/);
    assert.equal((await listen(newcomer!, "n0")).method, ACK, "a client holding nothing is served");
    assert.equal((await listen(newcomer!, "n1")).method, ACK);
    assert.match((await listen(newcomer!, "n2")).error.message, /limit of 12 open subscription streams/);
    await made.server.close();
  });
});

/**
 * Per-client share of listen slots: one client cannot hold every slot. A client is the
 * principal the transport vouches for, else the peer address, else the connection; what
 * the client writes in its own `_meta` never decides.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer, type Server } from "../../../templates/runtime/index.js";
import { clientKey, StreamSlots } from "../../../templates/runtime/subscriptions/slots.js";
import { Peer, SUBSCRIPTION_ID, until } from "../../support/runtime-peer.js";
import { recordingHandler } from "../../support/recording-handler.js";

const ACK = "notifications/subscriptions/acknowledged";
const T = { timeout: 20_000 };

function setup(limits: { maxStreams?: number; maxStreamsPerClient?: number }) {
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
    const slots = new StreamSlots(10, 1);
    assert.equal(slots.reserve("a"), undefined);
    assert.deepEqual(slots.reserve("a"), { scope: "client", limit: 1 });
    slots.release("a");
    assert.equal(slots.heldBy("a"), 0);
    assert.equal(slots.reserve("a"), undefined);
  });
});

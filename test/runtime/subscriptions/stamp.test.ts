import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer, type Channel } from "../../../packages/runtime/src/index.js";
import { createTestTransportPair } from "../../../packages/runtime/src/transports/index.js";
import { stampedJson, stampNotification } from "../../../packages/runtime/src/subscriptions/stamp.js";
import { serveHttp } from "../../../packages/runtime/src/transports/http-server.js";
import { Peer, SUBSCRIPTION_ID } from "../../support/runtime-peer.js";
import { openListen, type OpenStream } from "../transports/http-helpers.js";

const TOOLS = "notifications/tools/list_changed";
const UPDATED = "notifications/resources/updated";
const ACK = "notifications/subscriptions/acknowledged";
const T = { timeout: 20_000 };

/** A params value that counts how often it is serialised. */
function counted(): { value: object; serialisations: () => number } {
  let calls = 0;
  return { value: { toJSON: () => (calls++, "detail") }, serialisations: () => calls };
}

const textOf = (notification: Parameters<typeof stampNotification>[0], id: string | number) => stampedJson(notification, id, JSON.stringify(id));

describe("stamped notification text", () => {
  for (const [shape, extra] of [
    ["without _meta", {}],
    ["with its own _meta", { _meta: { trace: "t" } }],
  ] as const) {
    it(`a notification fanned out to many streams is encoded once and each copy carries its own id (params ${shape})`, () => {
      const { value, serialisations } = counted();
      const shared = { method: UPDATED, params: { uri: "file:///a", detail: value, ...extra } };
      const ids = [1, 22, "s-3", 'quote"and\\slash', "\u00e9\u2028", 4444];
      const texts = ids.map((id) => textOf(shared, id));
      assert.equal(serialisations(), 1, "the params were serialised once for every stream");
      for (const [i, id] of ids.entries()) {
        assert.equal(texts[i], JSON.stringify(stampNotification(shared, id)), `the text for ${JSON.stringify(id)} is what JSON.stringify gives`);
        assert.equal(JSON.parse(texts[i]!).params._meta[SUBSCRIPTION_ID], id);
      }
    });
  }

  it("params with their own toJSON are serialised as JSON.stringify would", () => {
    const custom = { method: UPDATED, params: { uri: "file:///a", toJSON: () => ({ uri: "file:///shown" }) } };
    for (const id of [1, "two"]) assert.equal(textOf(custom, id), JSON.stringify(stampNotification(custom, id)));
  });

  it("a notification that already carries a subscription id is sent unchanged", () => {
    const carried = { method: TOOLS, params: { _meta: { [SUBSCRIPTION_ID]: "theirs" } } };
    for (const id of [1, "mine"]) {
      assert.deepEqual(JSON.parse(textOf(carried, id)), { jsonrpc: "2.0", ...carried });
    }
  });

  it("methods that are not stream methods are never stamped", () => {
    const progress = { method: "notifications/progress", params: { progress: 1 } };
    assert.deepEqual(JSON.parse(textOf(progress, 7)), { jsonrpc: "2.0", ...progress });
  });

  it("notifications without params get the id in a fresh _meta, per method", () => {
    assert.deepEqual(JSON.parse(textOf({ method: TOOLS }, 4)), { jsonrpc: "2.0", method: TOOLS, params: { _meta: { [SUBSCRIPTION_ID]: 4 } } });
    assert.deepEqual(JSON.parse(textOf({ method: "notifications/prompts/list_changed" }, "x")).params, { _meta: { [SUBSCRIPTION_ID]: "x" } });
  });

  it("content that looks like the placeholder id is never replaced", () => {
    const tricky = { method: UPDATED, params: { uri: "(subscription-id placeholder 9f2c)", _meta: { note: "(subscription-id placeholder 9f2c)" } } };
    for (const id of [1, "two"]) assert.equal(textOf(tricky, id), JSON.stringify(stampNotification(tricky, id)));
  });

  it("fresh objects built per stream get the text JSON.stringify gives, equal or not", () => {
    const uris = ["file:///a", "file:///a", "file:///b", "file:///a", "file:///a"];
    for (const [i, uri] of uris.entries()) {
      const fresh = { method: UPDATED, params: { uri, n: i < 2 ? 1 : i } };
      assert.equal(textOf(fresh, `s-${i}`), JSON.stringify(stampNotification(fresh, `s-${i}`)));
    }
    const reordered = { method: UPDATED, params: { n: 1, uri: "file:///a" } };
    assert.equal(textOf(reordered, 9), JSON.stringify(stampNotification(reordered, 9)));
  });

  it("fresh objects sharing a nested object changed between sends get fresh text", () => {
    const nested = { size: 1 };
    assert.equal(JSON.parse(textOf({ method: UPDATED, params: { uri: "file:///a", nested } }, 1)).params.nested.size, 1);
    nested.size = 2;
    assert.equal(JSON.parse(textOf({ method: UPDATED, params: { uri: "file:///a", nested } }, 2)).params.nested.size, 2);
  });

  it("an object changed and sent again on a later event gets fresh text", async () => {
    const reused = { method: UPDATED, params: { uri: "file:///old" } };
    assert.equal(JSON.parse(textOf(reused, 1)).params.uri, "file:///old");
    await Promise.resolve();
    reused.params.uri = "file:///new";
    assert.equal(JSON.parse(textOf(reused, 1)).params.uri, "file:///new");
  });
});

/** A server whose handler sends one shared notification (serialisation counted) per posted message. */
function sharedNotificationServer() {
  const { value, serialisations } = counted();
  const shared = { method: UPDATED, params: { uri: "file:///a", detail: value } };
  const channels: Channel[] = [];
  const server = createServer({ name: "fan-out", version: "1.0.0" });
  server.addSubscriptionHandler({
    subscriptionCapabilities: () => ({ resourcesUpdated: true }),
    subscribe: (_filter, channel) => (channels.push(channel), { stream: null }),
    handleMessage: (_message, channel, state) => (channel.sendNotification(shared), { stream: state }),
  });
  const fanOut = () => channels.forEach((channel) => assert.equal(channel.post("changed"), true));
  return { server, serialisations, fanOut };
}

const FILTER = { resourceSubscriptions: ["file:///a"] };
const expected = (id: string) => ({ uri: "file:///a", detail: "detail", _meta: { [SUBSCRIPTION_ID]: id } });

describe("fan-out through a server", () => {
  it("every stream receives the one shared notification with its own subscription id, and it is serialised once", T, async () => {
    const { server, serialisations, fanOut } = sharedNotificationServer();
    const peers: Peer[] = [];
    for (let i = 0; i < 5; i++) {
      const pair = createTestTransportPair();
      await server.connect(pair.server);
      const peer = new Peer(pair.client);
      await pair.client.connect();
      peer.send("subscriptions/listen", { notifications: FILTER }, `sub-${i}`);
      await peer.waitFor((m) => m.method === ACK, `the ack of sub-${i}`);
      peers.push(peer);
    }
    fanOut();
    for (const [i, peer] of peers.entries()) {
      const got = await peer.waitFor((m) => m.method === UPDATED, `the update on sub-${i}`);
      assert.deepEqual(got.params, expected(`sub-${i}`));
    }
    assert.equal(serialisations(), 1);
    await server.close();
  });

  it("over Streamable HTTP too: each SSE stream gets its own id from the one serialisation", T, async () => {
    const { server, serialisations, fanOut } = sharedNotificationServer();
    const handle = await serveHttp(server);
    const streams: OpenStream[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const stream = await openListen(handle.url, `http-${i}`, FILTER);
        assert.equal((await stream.next()).method, ACK);
        streams.push(stream);
      }
      fanOut();
      for (const [i, stream] of streams.entries()) {
        const got = await stream.next();
        assert.equal(got.method, UPDATED);
        assert.deepEqual(got.params, expected(`http-${i}`));
      }
      assert.equal(serialisations(), 1);
    } finally {
      streams.forEach((stream) => stream.close());
      await server.close();
      await handle.close();
    }
  });

  it("a large notification fanned out over Streamable HTTP reaches each stream whole, with its own id, in order with small ones", T, async () => {
    const large = { method: UPDATED, params: { uri: "file:///a", text: "\u00e9".repeat(20_000) + "z".repeat(30_000) } };
    const small = { method: UPDATED, params: { uri: "file:///a", text: "after" } };
    const channels: Channel[] = [];
    const server = createServer({ name: "fan-out", version: "1.0.0" });
    server.addSubscriptionHandler({
      subscriptionCapabilities: () => ({ resourcesUpdated: true }),
      subscribe: (_filter, channel) => (channels.push(channel), { stream: null }),
      handleMessage: (message, channel, state) => (channel.sendNotification(message === "large" ? large : small), { stream: state }),
    });
    const handle = await serveHttp(server);
    const streams: OpenStream[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const stream = await openListen(handle.url, `big-${i}`, FILTER);
        assert.equal((await stream.next()).method, ACK);
        streams.push(stream);
      }
      // Each kind to every stream in turn, as an event source fans out: the large text is spliced for all but the first.
      for (const kind of ["small", "large", "small"]) channels.forEach((channel) => channel.post(kind));
      for (const [i, stream] of streams.entries()) {
        for (const sent of [small, large, small]) {
          const got = await stream.next();
          assert.deepEqual(
            got.params,
            { ...sent.params, _meta: { [SUBSCRIPTION_ID]: `big-${i}` } },
            `stream big-${i} got the ${sent.params.text.length}-character update whole`,
          );
        }
      }
    } finally {
      streams.forEach((stream) => stream.close());
      await server.close();
      await handle.close();
    }
  });
});

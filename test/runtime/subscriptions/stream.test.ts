import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer, McpError, type RuntimeEvent, type Server } from "../../../packages/runtime/src/index.js";
import { deferred, MEMORY_KINDS, Peer, SUBSCRIPTION_ID, until } from "../../support/runtime-peer.js";
import { recordingHandler, type RecordingOptions, type Step } from "../../support/recording-handler.js";

const ACK = "notifications/subscriptions/acknowledged";
const TOOLS = "notifications/tools/list_changed";
const PROMPTS = "notifications/prompts/list_changed";
const UPDATED = "notifications/resources/updated";
const T = { timeout: 20_000 };

function setup(options: RecordingOptions = {}, serverOptions: Partial<Parameters<typeof createServer>[0]> = {}) {
  const events: RuntimeEvent[] = [];
  const server = createServer({ name: "test-server", version: "1.0.0", onEvent: (e) => events.push(e), ...serverOptions });
  const { handler, log } = recordingHandler(options);
  server.addSubscriptionHandler(handler);
  return { server, log, events };
}

async function listen(peer: Peer, notifications: Record<string, unknown>, id: string | number = "sub-1") {
  peer.send("subscriptions/listen", { notifications }, id);
  return peer.waitFor((m) => m.method === ACK && m.params._meta[SUBSCRIPTION_ID] === id, `the ack of ${id}`);
}

function post(log: { channels: { post(m: unknown): boolean }[] }, step: Step, index = 0): boolean {
  return log.channels[index].post(step);
}

for (const kind of MEMORY_KINDS) {
  describe(`listen stream lifecycle (${kind} transport)`, () => {
    let server: Server;
    const open = async (options: RecordingOptions = {}, serverOptions = {}) => {
      const made = setup(options, serverOptions);
      server = made.server;
      return { ...made, peer: await Peer.connect(made.server, kind) };
    };

    it("subscribe returning { stream } acknowledges the full request", T, async () => {
      const { peer, log } = await open();
      const ack = await listen(peer, { toolsListChanged: true, resourceSubscriptions: ["file:///a"] });
      assert.deepEqual(ack.params.notifications, { toolsListChanged: true, resourceSubscriptions: ["file:///a"] });
      assert.deepEqual(log.filters[0], { toolsListChanged: true, resourceSubscriptions: ["file:///a"] });
      await server.close();
    });

    it("honored can only narrow the request: the runtime intersects booleans and URI lists", T, async () => {
      const { peer } = await open({
        onSubscribe: () => ({
          stream: 0,
          honored: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["file:///b", "file:///other"] },
        }),
      });
      const ack = await listen(peer, { toolsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ["file:///a", "file:///b"] });
      assert.deepEqual(ack.params.notifications, { toolsListChanged: true, resourceSubscriptions: ["file:///b"] });
      await server.close();
    });

    it("the ack never reports a type the server does not advertise", T, async () => {
      const { peer } = await open({ declares: { toolsListChanged: true } });
      const discover = await peer.request("server/discover");
      assert.deepEqual(discover.result.capabilities, { tools: { listChanged: true } });
      const ack = await listen(peer, { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["file:///a"] });
      assert.deepEqual(ack.params.notifications, { toolsListChanged: true });
      await server.close();
    });

    it("subscribe returning { stop } rejects with an error response and no ack", T, async () => {
      const { peer, log, events } = await open({ onSubscribe: () => ({ stop: "forbidden" }) });
      const id = peer.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, "rejected");
      const response = await peer.response(id);
      assert.equal(typeof response.error.code, "number");
      assert.equal(
        peer.messages.some((m) => m.method === ACK),
        false,
      );
      assert.equal(log.closes, 0);
      assert.ok(events.some((e) => e.type === "stream-rejected" && e.reason === "forbidden"));
      await server.close();
    });

    it("a rejection carrying an McpError answers with its code", T, async () => {
      const { peer } = await open({ onSubscribe: () => ({ stop: new McpError(-32001, "not allowed") }) });
      const response = await peer.request("subscriptions/listen", { notifications: { toolsListChanged: true } }, "x");
      assert.deepEqual(response.error, { code: -32001, message: "not allowed" });
      await server.close();
    });

    it("the ack is the first message of the stream even if the handler sends inside subscribe", T, async () => {
      let duringSubscribe: unknown;
      const { peer, log } = await open({
        onSubscribe: (_filter, channel) => {
          duringSubscribe = channel.sendNotification({ method: TOOLS });
          channel.post({ send: { method: TOOLS } } satisfies Step);
          return { stream: 0 };
        },
      });
      await listen(peer, { toolsListChanged: true });
      await until(() => log.sent.length === 1, "the posted message was handled");
      await peer.sync();
      assert.deepEqual(duringSubscribe, { ok: false, reason: "not-acknowledged" });
      assert.deepEqual(
        peer.stream("sub-1").map((m) => m.method),
        [ACK, TOOLS],
      );
      await server.close();
    });

    it("handleMessage runs once per posted message, in order, never two at a time", T, async () => {
      const { peer, log } = await open();
      await listen(peer, { toolsListChanged: true });
      const gate = deferred();
      post(log, { wait: gate.promise });
      for (let i = 0; i < 5; i++) post(log, { send: { method: TOOLS, params: { n: i } } });
      gate.resolve();
      await until(() => log.sent.length === 5, "five messages were handled");
      assert.equal(log.maxActive, 1);
      assert.deepEqual(
        log.calls.filter((c) => c.startsWith("message")),
        ["message:0", "message:1", "message:2", "message:3", "message:4", "message:5"],
      );
      await peer.sync();
      assert.deepEqual(
        peer
          .stream("sub-1")
          .filter((m) => m.method === TOOLS)
          .map((m) => m.params.n),
        [0, 1, 2, 3, 4],
      );
      await server.close();
    });

    it("{ stop } answers the listen request with the complete result carrying the subscription id, without handleClose", T, async () => {
      const { peer, log, events } = await open();
      await listen(peer, { toolsListChanged: true }, 7);
      post(log, { stop: "normal" });
      const result = await peer.response(7);
      assert.equal(result.result.resultType, "complete");
      assert.equal(result.result._meta[SUBSCRIPTION_ID], 7);
      assert.equal(JSON.stringify(result).includes("normal"), false, "the stop reason never reaches the client");
      assert.ok(events.some((e) => e.type === "stream-stopped" && e.reason === "normal"));
      await peer.sync();
      assert.equal(log.closes, 0);
      assert.equal(log.channels[0].closed, true);
      await server.close();
      assert.equal(log.closes, 0);
    });

    it("notifications/cancelled naming the listen request runs handleClose once and nothing more is sent for that id", T, async () => {
      const { peer, log } = await open();
      await listen(peer, { toolsListChanged: true });
      peer.notify("notifications/cancelled", { requestId: "sub-1" });
      await until(() => log.closes === 1, "handleClose ran");
      assert.equal(post(log, { send: { method: TOOLS } }), false);
      await peer.sync();
      assert.deepEqual(
        peer.stream("sub-1").map((m) => m.method),
        [ACK],
      );
      assert.deepEqual(log.closeView, { closed: true, send: { ok: false, reason: "closed" } });
      peer.notify("notifications/cancelled", { requestId: "sub-1" });
      await server.close();
      assert.equal(log.closes, 1);
    });

    it("handleClose runs after the handleMessage in flight has finished", T, async () => {
      const { peer, log } = await open();
      await listen(peer, { toolsListChanged: true });
      const gate = deferred();
      post(log, { wait: gate.promise });
      await until(() => log.active === 1, "handleMessage is in flight");
      peer.notify("notifications/cancelled", { requestId: "sub-1" });
      await peer.sync();
      assert.equal(log.closes, 0, "handleClose waits for the message in flight");
      gate.resolve();
      await until(() => log.closes === 1, "handleClose ran");
      assert.deepEqual(log.calls, ["subscribe", "message:0", "close:1"]);
      await server.close();
    });

    it("handleClose runs exactly once when the transport drops", T, async () => {
      const { peer, log, events } = await open();
      await listen(peer, { toolsListChanged: true });
      await peer.transport.close();
      await until(() => log.closes === 1, "handleClose ran");
      assert.ok(events.some((e) => e.type === "stream-closed" && e.cause === "transport-closed"));
      await server.close();
      assert.equal(log.closes, 1);
    });

    it("server close ends every stream with its complete result and runs handleClose once", T, async () => {
      const { peer, log } = await open();
      await listen(peer, { toolsListChanged: true }, "a");
      await listen(peer, { promptsListChanged: true }, "b");
      await server.close();
      for (const id of ["a", "b"]) {
        const done = await peer.response(id);
        assert.equal(done.result.resultType, "complete");
        assert.equal(done.result._meta[SUBSCRIPTION_ID], id);
      }
      assert.equal(log.closes, 2);
      await peer.waitClosed();
    });

    it("sendNotification stamps the subscription id and never overwrites one already there", T, async () => {
      const { peer, log } = await open();
      await listen(peer, { toolsListChanged: true });
      post(log, { send: { method: TOOLS } });
      post(log, { send: { method: TOOLS, params: { _meta: { [SUBSCRIPTION_ID]: "kept", other: 1 } } } });
      await until(() => log.sent.length === 2, "both sends");
      await peer.sync();
      const sent = peer.messages.filter((m) => m.method === TOOLS);
      assert.deepEqual(
        sent.map((m) => m.params._meta),
        [{ [SUBSCRIPTION_ID]: "sub-1" }, { [SUBSCRIPTION_ID]: "kept", other: 1 }],
      );
      await server.close();
    });

    it("sendNotification refuses, writing nothing, a type the client did not request", T, async () => {
      const { peer, log } = await open();
      await listen(peer, { toolsListChanged: true });
      post(log, { send: { method: PROMPTS } });
      post(log, { send: { method: ACK, params: { notifications: {} } } });
      post(log, { send: { method: "notifications/message", params: { level: "info", data: "x" } } });
      await until(() => log.sent.length === 3, "three sends");
      assert.deepEqual(log.sent, Array(3).fill({ ok: false, reason: "not-requested" }));
      await peer.sync();
      assert.deepEqual(
        peer.stream("sub-1").map((m) => m.method),
        [ACK],
      );
      assert.equal(
        peer.messages.some((m) => m.method === PROMPTS || m.method === "notifications/message"),
        false,
      );
      await server.close();
    });

    it("sendNotification refuses a type the handler did not honor", T, async () => {
      const { peer, log } = await open({ onSubscribe: () => ({ stream: 0, honored: { toolsListChanged: true } }) });
      await listen(peer, { toolsListChanged: true, promptsListChanged: true });
      post(log, { send: { method: PROMPTS } });
      await until(() => log.sent.length === 1, "the send");
      assert.deepEqual(log.sent, [{ ok: false, reason: "not-requested" }]);
      await peer.sync();
      assert.equal(
        peer.messages.some((m) => m.method === PROMPTS),
        false,
      );
      await server.close();
    });

    it("sendNotification refuses resources/updated for a URI outside the honored resourceSubscriptions", T, async () => {
      const { peer, log } = await open();
      await listen(peer, { resourceSubscriptions: ["file:///a"] });
      post(log, { send: { method: UPDATED, params: { uri: "file:///b" } } });
      post(log, { send: { method: UPDATED, params: {} } });
      post(log, { send: { method: UPDATED, params: { uri: "file:///a" } } });
      await until(() => log.sent.length === 3, "three sends");
      assert.deepEqual(log.sent, [{ ok: false, reason: "uri-not-honored" }, { ok: false, reason: "uri-not-honored" }, { ok: true }]);
      await peer.sync();
      assert.deepEqual(
        peer.messages.filter((m) => m.method === UPDATED).map((m) => m.params.uri),
        ["file:///a"],
      );
      await server.close();
    });

    it("a handler that throws in subscribe gets an error response and disturbs no other stream", T, async () => {
      let calls = 0;
      const { peer, log } = await open({
        onSubscribe: () => {
          if (calls++ === 1) throw new Error("boom");
          return { stream: 0 };
        },
      });
      await listen(peer, { toolsListChanged: true }, "good");
      const failed = await peer.request("subscriptions/listen", { notifications: { toolsListChanged: true } }, "bad");
      assert.equal(failed.error.code, -32603);
      post(log, { send: { method: TOOLS } });
      await peer.waitFor((m) => m.method === TOOLS, "a notification on the good stream");
      await server.close();
    });

    it("a handler that throws in handleMessage ends only its own stream, and cleanup runs", T, async () => {
      const { peer, log, events } = await open();
      await listen(peer, { toolsListChanged: true }, "a");
      await listen(peer, { toolsListChanged: true }, "b");
      post(log, { throw: "broken" }, 0);
      const ended = await peer.response("a");
      assert.equal(ended.result.resultType, "complete");
      await until(() => log.closes === 1, "cleanup ran");
      assert.ok(events.some((e) => e.type === "handler-error" && e.callback === "handleMessage"));
      post(log, { send: { method: TOOLS } }, 1);
      const other = await peer.waitFor((m) => m.method === TOOLS, "a notification on stream b");
      assert.equal(other.params._meta[SUBSCRIPTION_ID], "b");
      await server.close();
    });

    it("a handler returning something malformed ends its stream like a failure", T, async () => {
      const { peer, log } = await open();
      await listen(peer, { toolsListChanged: true });
      post(log, { garbage: true });
      await peer.response("sub-1");
      await until(() => log.closes === 1, "cleanup ran");
      await server.close();
    });

    it("a full mailbox coalesces a message equal to one still waiting", T, async () => {
      const { peer, log, events } = await open({}, { limits: { mailboxSize: 2 } });
      await listen(peer, { toolsListChanged: true });
      const gate = deferred();
      post(log, { wait: gate.promise });
      await until(() => log.active === 1, "the first message is in flight");
      const change = { send: { method: TOOLS } };
      assert.equal(post(log, change), true);
      assert.equal(post(log, { send: { method: TOOLS } }), true);
      assert.equal(post(log, { send: { method: TOOLS } }), true, "equal to a waiting message: coalesced");
      assert.equal(events.filter((e) => e.type === "message-coalesced").length, 1);
      gate.resolve();
      await until(() => log.sent.length === 2, "the two queued messages were handled");
      await server.close();
    });

    it("a mailbox that overflows ends the stream with the complete result and runs cleanup", T, async () => {
      const { peer, log, events } = await open({}, { limits: { mailboxSize: 1 } });
      await listen(peer, { toolsListChanged: true });
      const gate = deferred();
      post(log, { wait: gate.promise });
      await until(() => log.active === 1, "the first message is in flight");
      assert.equal(post(log, { send: { method: TOOLS, params: { n: 1 } } }), true);
      assert.equal(post(log, { send: { method: TOOLS, params: { n: 2 } } }), false);
      const done = await peer.response("sub-1");
      assert.equal(done.result.resultType, "complete");
      gate.resolve();
      await until(() => log.closes === 1, "cleanup ran");
      assert.ok(events.some((e) => e.type === "stream-closed" && e.cause === "overflow"));
      await server.close();
    });

    it("the number of open streams is bounded: a listen beyond it is refused before any ack", T, async () => {
      const { peer, log } = await open({}, { limits: { maxStreams: 1 } });
      await listen(peer, { toolsListChanged: true }, "first");
      const refused = await peer.request("subscriptions/listen", { notifications: { toolsListChanged: true } }, "second");
      assert.equal(typeof refused.error.code, "number");
      assert.equal(
        peer.stream("second").some((m) => m.method === ACK),
        false,
      );
      assert.equal(log.calls.filter((c) => c === "subscribe").length, 1, "subscribe never ran for the refused stream");
      peer.notify("notifications/cancelled", { requestId: "first" });
      await until(() => log.closes === 1, "the first stream closed");
      await listen(peer, { toolsListChanged: true }, "third");
      await server.close();
    });

    it("a listen with a malformed filter is answered with -32602", T, async () => {
      const { peer } = await open();
      for (const notifications of [undefined, [], { toolsListChanged: "yes" }, { resourceSubscriptions: [1] }]) {
        const response = await peer.request("subscriptions/listen", notifications === undefined ? {} : { notifications });
        assert.equal(response.error.code, -32602, JSON.stringify(notifications));
      }
      await server.close();
    });

    it("a request id already used by an open stream is refused", T, async () => {
      const { peer } = await open();
      await listen(peer, { toolsListChanged: true }, 1);
      const response = await peer.request("tools/list", {}, 1);
      assert.equal(response.error.code, -32600);
      await server.close();
    });

    it("a cancel while subscribe is running sends no ack, and handleClose runs once subscribe has accepted", T, async () => {
      const release = deferred();
      const { peer, log } = await open({
        onSubscribe: async () => {
          await release.promise;
          return { stream: 0 };
        },
      });
      peer.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, "early");
      await until(() => log.calls.includes("subscribe"), "subscribe started");
      peer.notify("notifications/cancelled", { requestId: "early" });
      await peer.sync();
      release.resolve();
      await until(() => log.closes === 1, "handleClose ran");
      await peer.sync();
      assert.deepEqual(peer.stream("early"), []);
      await server.close();
      assert.equal(log.closes, 1);
    });

    it("several streams on one connection are told apart by their ids", T, async () => {
      const { peer, log } = await open();
      await listen(peer, { toolsListChanged: true }, "t");
      await listen(peer, { promptsListChanged: true }, "p");
      post(log, { send: { method: TOOLS } }, 0);
      post(log, { send: { method: PROMPTS } }, 1);
      post(log, { send: { method: TOOLS } }, 1);
      await until(() => log.sent.length === 3, "three sends");
      await peer.sync();
      assert.deepEqual(
        peer.stream("t").map((m) => m.method),
        [ACK, TOOLS],
      );
      assert.deepEqual(
        peer.stream("p").map((m) => m.method),
        [ACK, PROMPTS],
      );
      await server.close();
    });

    it("channel.meta is the request _meta plus the transport context, and the context wins", T, async () => {
      const made = setup();
      server = made.server;
      const peer = await Peer.connect(server, kind, { principal: "alice" });
      peer.send(
        "subscriptions/listen",
        {
          notifications: { toolsListChanged: true },
          _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, principal: "mallory" },
        },
        "m",
      );
      await peer.waitFor((m) => m.method === ACK, "the ack");
      const meta = made.log.channels[0].meta;
      assert.equal(meta.principal, "alice");
      assert.equal(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
      assert.throws(() => ((meta as Record<string, unknown>).principal = "eve"));
      await server.close();
    });
  });
}

describe("several subscription handlers on one stream", () => {
  it("each handler whose capabilities meet the request gets a worker; the ack reports the union", T, async () => {
    const server = createServer({ name: "multi", version: "1" });
    const tools = recordingHandler({ declares: { toolsListChanged: true } });
    const prompts = recordingHandler({ declares: { promptsListChanged: true } });
    const resources = recordingHandler({ declares: { resourcesUpdated: true } });
    for (const { handler } of [tools, prompts, resources]) server.addSubscriptionHandler(handler);
    const peer = await Peer.connect(server, "test");
    const ack = await listen(peer, { toolsListChanged: true, promptsListChanged: true });
    assert.deepEqual(ack.params.notifications, { toolsListChanged: true, promptsListChanged: true });
    assert.deepEqual(tools.log.filters, [{ toolsListChanged: true }]);
    assert.deepEqual(prompts.log.filters, [{ promptsListChanged: true }]);
    assert.deepEqual(resources.log.filters, [], "a handler that serves nothing requested is not offered the stream");
    tools.log.channels[0].post({ send: { method: PROMPTS } } satisfies Step);
    await until(() => tools.log.sent.length === 1, "the send");
    assert.deepEqual(tools.log.sent, [{ ok: false, reason: "not-requested" }], "a worker sends only what it honored itself");
    await server.close();
  });

  it("a { stop } from one worker completes the stream and the others get handleClose", T, async () => {
    const server = createServer({ name: "multi", version: "1" });
    const tools = recordingHandler({ declares: { toolsListChanged: true } });
    const prompts = recordingHandler({ declares: { promptsListChanged: true } });
    server.addSubscriptionHandler(tools.handler).addSubscriptionHandler(prompts.handler);
    const peer = await Peer.connect(server, "inprocess");
    await listen(peer, { toolsListChanged: true, promptsListChanged: true });
    tools.log.channels[0].post({ stop: "normal" } satisfies Step);
    const done = await peer.response("sub-1");
    assert.equal(done.result.resultType, "complete");
    await until(() => prompts.log.closes === 1, "the other worker closed");
    assert.equal(tools.log.closes, 0);
    await server.close();
  });

  it("when one handler declines, the others still serve the stream; when all decline, an error", T, async () => {
    const server = createServer({ name: "multi", version: "1" });
    const declining = recordingHandler({ declares: { toolsListChanged: true }, onSubscribe: () => ({ stop: "no" }) });
    const accepting = recordingHandler({ declares: { promptsListChanged: true } });
    server.addSubscriptionHandler(declining.handler).addSubscriptionHandler(accepting.handler);
    const peer = await Peer.connect(server, "test");
    const ack = await listen(peer, { toolsListChanged: true, promptsListChanged: true });
    assert.deepEqual(ack.params.notifications, { promptsListChanged: true });
    const refused = await peer.request("subscriptions/listen", { notifications: { toolsListChanged: true } }, "only-tools");
    assert.equal(typeof refused.error.code, "number");
    await server.close();
  });
});

describe("synchronous subscription handlers", () => {
  it("run one message at a time, in order, and handleClose waits for a handleMessage still on the stack", T, async () => {
    const calls: string[] = [];
    const channels: Array<{ post(m: unknown): boolean }> = [];
    const server = createServer({ name: "sync", version: "1", limits: { mailboxSize: 1 } });
    server.addSubscriptionHandler<number, unknown>({
      subscriptionCapabilities: () => ({ toolsListChanged: true }),
      subscribe: (_filter, channel) => (channels.push(channel), { stream: 0 }),
      handleMessage(message, channel, state) {
        calls.push(`start:${String(message)}`);
        if (message === "overflow") {
          channel.post("queued"); // waits: this worker is busy
          channel.post("too many"); // the mailbox (size 1) is full: the stream ends now
        }
        channel.sendNotification({ method: TOOLS, params: { n: state } });
        calls.push(`end:${String(message)}`);
        return { stream: state + 1 };
      },
      handleClose(_channel, state) {
        calls.push(`close:${state}`);
      },
    });
    const peer = await Peer.connect(server, "test");
    await listen(peer, { toolsListChanged: true });
    channels[0].post("a");
    channels[0].post("b");
    assert.deepEqual(calls, ["start:a", "end:a", "start:b", "end:b"], "synchronous handlers run inside post()");
    channels[0].post("overflow");
    await until(() => calls.includes("close:3"), "handleClose ran");
    assert.deepEqual(calls.slice(4), ["start:overflow", "end:overflow", "close:3"]);
    const done = await peer.response("sub-1");
    assert.equal(done.result.resultType, "complete");
    await server.close();
  });
});

describe("failures stay inside their own stream", () => {
  it("a handleClose that throws, a subscriptionCapabilities that throws and an onEvent that throws disturb nothing else", T, async () => {
    const server = createServer({
      name: "isolation",
      version: "1",
      onEvent: () => {
        throw new Error("observer broke");
      },
    });
    const throwingClose = recordingHandler({ declares: { toolsListChanged: true } });
    throwingClose.handler.handleClose = () => {
      throw new Error("cleanup broke");
    };
    const healthy = recordingHandler({ declares: { promptsListChanged: true } });
    server.addSubscriptionHandler(throwingClose.handler);
    server.addSubscriptionHandler({
      ...recordingHandler().handler,
      subscriptionCapabilities: () => {
        throw new Error("declaration broke");
      },
    });
    server.addSubscriptionHandler(healthy.handler);
    const peer = await Peer.connect(server, "test");
    const discovered = await peer.request("server/discover");
    assert.deepEqual(discovered.result.capabilities, { tools: { listChanged: true }, prompts: { listChanged: true } });
    await listen(peer, { toolsListChanged: true }, "t");
    await listen(peer, { promptsListChanged: true }, "p");
    peer.notify("notifications/cancelled", { requestId: "t" });
    await peer.sync();
    healthy.log.channels[0].post({ send: { method: PROMPTS } } satisfies Step);
    const delivered = await peer.waitFor((m) => m.method === PROMPTS, "a notification on the healthy stream");
    assert.equal(delivered.params._meta[SUBSCRIPTION_ID], "p");
    await server.close();
    assert.equal(healthy.log.closes, 1);
  });
});

describe("one teardown path", () => {
  it("a handler's channel is a narrow view: id, meta, honored, closed, sendNotification, post and nothing of the worker", T, async () => {
    const { server, log } = setup();
    const peer = await Peer.connect(server, "test");
    await listen(peer, { toolsListChanged: true }, "narrow");
    const channel = log.channels[0] as unknown as Record<string, unknown>;
    assert.equal(channel.requestId, "narrow");
    assert.deepEqual(channel.honored, { toolsListChanged: true });
    assert.equal(channel.closed, false);
    for (const internal of ["state", "owner", "entry", "declared", "start", "end", "accept", "stream"]) {
      assert.equal(internal in channel, false, `the channel exposes no ${internal}`);
    }
    assert.throws(() => (channel.closed = true), TypeError, "closed is read-only");
    await server.close();
    assert.equal(channel.closed, true);
  });

  it("endings racing each other tear the stream down once: one event, one complete, one handleClose", T, async () => {
    const { server, log, events } = setup({}, { limits: { mailboxSize: 1 } });
    const peer = await Peer.connect(server, "test");
    await listen(peer, { toolsListChanged: true });
    const gate = deferred();
    post(log, { wait: gate.promise });
    await until(() => log.active === 1, "a message is in flight");
    post(log, { send: { method: TOOLS, params: { n: 1 } } });
    assert.equal(post(log, { send: { method: TOOLS, params: { n: 2 } } }), false, "overflow ends the stream");
    peer.notify("notifications/cancelled", { requestId: "sub-1" }); // a second ending, too late
    const closing = server.close(); // and a third
    gate.resolve();
    await closing;
    await until(() => log.closes === 1, "handleClose ran");
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(log.closes, 1, "handleClose ran once");
    assert.deepEqual(
      events.filter((e) => e.type === "stream-closed").map((e) => (e as { cause: string }).cause),
      ["overflow"],
    );
    assert.equal(peer.stream("sub-1").filter((m) => m.result?.resultType === "complete").length, 1);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer, McpError, MemoryTaskStore, type RequestContext, type RuntimeEvent } from "../../packages/runtime/src/index.js";
import { type TestTransport, type Transport, createTestTransportPair } from "../../packages/runtime/src/transports/index.js";
import { MEMORY_KINDS, Peer, PROTOCOL_VERSION, until } from "../support/runtime-peer.js";
import { recordingHandler } from "../support/recording-handler.js";

const T = { timeout: 20_000 };
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";
const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CAPS_KEY = "io.modelcontextprotocol/clientCapabilities";

function echoTool(server: ReturnType<typeof createServer>) {
  server.addTool({ name: "echo", inputSchema: { type: "object" } }, (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] }));
}

for (const kind of MEMORY_KINDS) {
  describe(`server core (${kind} transport)`, () => {
    it("server/discover lists supported versions, folded capabilities, cache fields and serverInfo in _meta", T, async () => {
      const server = createServer({
        name: "disc",
        version: "2.0.0",
        title: "Discovery",
        instructions: "be nice",
        supportedVersions: [PROTOCOL_VERSION, "2099-09-01"],
        discover: { ttlMs: 60_000, cacheScope: "public" },
      });
      echoTool(server);
      server.setRequestHandler("prompts/list", () => ({ prompts: [], cacheScope: "public" as const, ttlMs: 0 }));
      server.addSubscriptionHandler(recordingHandler({ declares: { toolsListChanged: true } }).handler);
      server.addSubscriptionHandler(recordingHandler({ declares: { resourcesUpdated: true, promptsListChanged: false } }).handler);
      const peer = await Peer.connect(server, kind);
      const { result } = await peer.request("server/discover");
      assert.deepEqual(result.supportedVersions, [PROTOCOL_VERSION, "2099-09-01"]);
      assert.deepEqual(result.capabilities, { tools: { listChanged: true }, prompts: {}, resources: { subscribe: true }, logging: {} });
      assert.equal(result.cacheScope, "public");
      assert.equal(result.ttlMs, 60_000);
      assert.equal(result.instructions, "be nice");
      assert.equal(result.resultType, "complete");
      assert.deepEqual(result._meta[SERVER_INFO], { name: "disc", version: "2.0.0", title: "Discovery" });
      await server.close();
    });

    it("a request without _meta, protocol version or client capabilities is answered with -32602", T, async () => {
      const server = createServer({ name: "s", version: "1" });
      echoTool(server);
      const peer = await Peer.connect(server, kind);
      const cases = [
        { _meta: undefined },
        { _meta: { [CAPS_KEY]: {} } },
        { _meta: { [VERSION_KEY]: PROTOCOL_VERSION } },
        { _meta: { [VERSION_KEY]: PROTOCOL_VERSION, [CAPS_KEY]: "none" } },
      ];
      for (const params of cases) {
        const response = await peer.request("tools/list", params);
        assert.equal(response.error?.code, -32602, JSON.stringify(params));
      }
      const noParams = peer.messages.length;
      void peer.transport.sendMessage({ jsonrpc: "2.0", id: "bare", method: "server/discover" });
      assert.equal((await peer.response("bare")).error.code, -32602);
      assert.ok(peer.messages.length > noParams);
      await server.close();
    });

    it("an unsupported protocol version is answered with -32022 naming the supported and requested versions", T, async () => {
      const server = createServer({ name: "s", version: "1" });
      const peer = await Peer.connect(server, kind);
      const response = await peer.request("server/discover", { _meta: { [VERSION_KEY]: "2024-11-05", [CAPS_KEY]: {} } });
      assert.equal(response.error.code, -32022);
      assert.deepEqual(response.error.data, { supported: [PROTOCOL_VERSION], requested: "2024-11-05" });
      await server.close();
    });

    it("every result carries resultType, defaulting to complete and keeping the handler's own", T, async () => {
      const server = createServer({ name: "s", version: "1" });
      server.setRequestHandler("prompts/list", () => ({ prompts: [], cacheScope: "public" as const, ttlMs: 0 }));
      server.setRequestHandler("resources/list", () => ({ resources: [], cacheScope: "public" as const, ttlMs: 0, resultType: "input_required" }));
      const peer = await Peer.connect(server, kind);
      assert.equal((await peer.request("prompts/list")).result.resultType, "complete");
      assert.equal((await peer.request("resources/list")).result.resultType, "input_required");
      assert.equal((await peer.request("server/discover")).result.resultType, "complete");
      await server.close();
    });

    it("an unknown method is answered with -32601", T, async () => {
      const server = createServer({ name: "s", version: "1" });
      const peer = await Peer.connect(server, kind);
      assert.equal((await peer.request("tools/list")).error.code, -32601, "no handler registered");
      assert.equal((await peer.request("no/such/method")).error.code, -32601);
      await server.close();
    });

    it("malformed JSON is answered with -32700 and the connection keeps serving", T, async () => {
      const server = createServer({ name: "s", version: "1" });
      const pair = createTestTransportPair();
      await server.connect(pair.server);
      const peer = new Peer(pair.client);
      await pair.client.connect();
      (pair.server as TestTransport).inbox.deliver({ type: "message", message: '{"jsonrpc": "2.0", "id": 1, "method": ' });
      const parseError = await peer.waitFor((m) => m.error !== undefined, "the parse error");
      assert.deepEqual([parseError.id, parseError.error.code], [null, -32700]);
      assert.equal((await peer.request("server/discover")).result.resultType, "complete");
      await server.close();
    });

    it("an invalid request is answered with -32600", T, async () => {
      const server = createServer({ name: "s", version: "1" });
      const peer = await Peer.connect(server, kind);
      const bad = [
        { id: 1, method: "server/discover", params: {} },
        { jsonrpc: "2.0", id: 2, method: 42 },
        { jsonrpc: "2.0", id: 3, method: "server/discover", params: [1] },
        { jsonrpc: "2.0", id: { nested: true }, method: "server/discover" },
        [1, 2],
      ];
      for (const message of bad) void peer.transport.sendMessage(message as never);
      await until(() => peer.messages.length === bad.length, "an answer to each");
      assert.deepEqual(
        peer.messages.map((m) => m.error?.code),
        Array(bad.length).fill(-32600),
      );
      assert.deepEqual(
        peer.messages.map((m) => m.id),
        [1, 2, 3, null, null],
      );
      await server.close();
    });

    it("a handler that throws produces an error response, never a crash", T, async () => {
      const events: RuntimeEvent[] = [];
      const server = createServer({ name: "s", version: "1", onEvent: (e) => events.push(e) });
      server.setRequestHandler("prompts/list", () => {
        throw new Error("secret detail");
      });
      server.setRequestHandler("prompts/get", async () => {
        throw new McpError(-32602, "Unknown prompt: x");
      });
      server.setRequestHandler("resources/list", () => "not an object" as never);
      const peer = await Peer.connect(server, kind);
      const crashed = await peer.request("prompts/list");
      assert.equal(crashed.error.code, -32603);
      assert.equal(crashed.error.message.includes("secret detail"), false);
      assert.deepEqual((await peer.request("prompts/get", { name: "x" })).error, { code: -32602, message: "Unknown prompt: x" });
      assert.equal((await peer.request("resources/list")).error.code, -32603);
      assert.ok(events.some((e) => e.type === "handler-error" && e.callback === "prompts/list"));
      assert.equal((await peer.request("server/discover")).result.resultType, "complete");
      await server.close();
    });

    it("addTool serves tools/list and tools/call; removeTool takes a tool away", T, async () => {
      const server = createServer({ name: "s", version: "1" });
      echoTool(server);
      server.addTool({ name: "fail", inputSchema: { type: "object" } }, () => {
        throw new Error("tool broke");
      });
      const peer = await Peer.connect(server, kind);
      assert.deepEqual(
        (await peer.request("tools/list")).result.tools.map((t: { name: string }) => t.name),
        ["echo", "fail"],
      );
      const called = await peer.request("tools/call", { name: "echo", arguments: { a: 1 } });
      assert.deepEqual(called.result.content, [{ type: "text", text: '{"a":1}' }]);
      const failed = await peer.request("tools/call", { name: "fail", arguments: {} });
      assert.equal(failed.result.isError, true);
      assert.equal(server.removeTool("echo"), true);
      assert.equal(server.removeTool("echo"), false);
      assert.deepEqual(
        (await peer.request("tools/list")).result.tools.map((t: { name: string }) => t.name),
        ["fail"],
      );
      assert.equal((await peer.request("tools/call", { name: "echo", arguments: {} })).error.code, -32602);
      await server.close();
    });

    it("the request context carries _meta merged with the transport context; a cancel aborts it and no response follows", T, async () => {
      const server = createServer({ name: "s", version: "1" });
      let seen: RequestContext | undefined;
      let release!: () => void;
      server.setRequestHandler("prompts/list", async (_params, context) => {
        seen = context;
        await new Promise<void>((resolve) => (release = resolve));
        return { prompts: [], cacheScope: "public" as const, ttlMs: 0 };
      });
      const peer = await Peer.connect(server, kind, { principal: "alice" });
      peer.send("prompts/list", {}, "slow");
      await until(() => seen !== undefined, "the handler started");
      assert.equal(seen!.meta.principal, "alice");
      assert.equal(seen!.meta[VERSION_KEY], PROTOCOL_VERSION);
      assert.equal(seen!.signal.aborted, false);
      peer.notify("notifications/cancelled", { requestId: "slow" });
      await until(() => seen!.signal.aborted, "the signal aborted");
      release();
      await peer.sync();
      assert.equal(
        peer.messages.some((m) => m.id === "slow"),
        false,
        "a cancelled request gets no response",
      );
      await server.close();
    });

    it("the runtime-owned methods cannot be replaced", T, async () => {
      const server = createServer({ name: "s", version: "1" });
      assert.throws(() => server.setRequestHandler("server/discover" as never, (() => ({})) as never), /answered by the runtime/);
      assert.throws(() => server.setRequestHandler("subscriptions/listen" as never, (() => ({})) as never), /answered by the runtime/);
      assert.throws(() => createServer({} as never), /name and options.version/);
    });

    it("a pull-only transport is served through receiveMessage", T, async () => {
      const server = createServer({ name: "s", version: "1" });
      const pair = createTestTransportPair();
      const end = pair.server;
      // The same end with its push side hidden: the server must pull.
      const pullOnly: Transport = {
        connect: () => end.connect(),
        sendMessage: (message) => end.sendMessage(message),
        receiveMessage: () => end.receiveMessage(),
        close: () => end.close(),
      };
      await server.connect(pullOnly);
      const peer = new Peer(pair.client);
      await pair.client.connect();
      assert.equal((await peer.request("server/discover")).result.resultType, "complete");
      assert.equal((await peer.request("no/such")).error.code, -32601);
      await server.close();
      await peer.waitClosed();
    });

    it("a transport that fails to connect makes server.connect reject", T, async () => {
      const server = createServer({ name: "s", version: "1" });
      const broken = createTestTransportPair().server;
      await broken.close();
      await assert.rejects(server.connect(broken), /transport closed/);
      await server.close();
    });

    it("a closed server refuses new connections", T, async () => {
      const server = createServer({ name: "s", version: "1" });
      await server.close();
      await assert.rejects(server.connect(createTestTransportPair().server), /closed/);
    });
  });
}

describe("capabilities follow what the server uses", () => {
  it("logging is advertised once a request handler is registered (each can log), not before, and not with logging: false", async () => {
    const bare = createServer({ name: "bare", version: "1" });
    assert.equal(bare.capabilities().logging, undefined, "no handler, nothing to log from");
    echoTool(bare);
    assert.deepEqual(bare.capabilities(), { tools: {}, logging: {} });
    const quiet = createServer({ name: "quiet", version: "1", logging: false });
    echoTool(quiet);
    assert.deepEqual(quiet.capabilities(), { tools: {} });
    const peer = await Peer.connect(bare, "test");
    assert.deepEqual((await peer.request("server/discover")).result.capabilities.logging, {});
    await bare.close();
    await quiet.close();
  });
});

describe("Server.close() is one idempotent shutdown", () => {
  it("a second close, at once or later, awaits the first and never runs teardown twice", T, async () => {
    let storeCloses = 0;
    class CountingStore extends MemoryTaskStore {
      async close(): Promise<void> {
        storeCloses += 1;
        await new Promise((resolve) => setTimeout(resolve, 20)); // a teardown that takes a moment
        // The memory store holds nothing to release.
      }
    }
    const server = createServer({ name: "s", version: "1", tasks: { store: new CountingStore() } });
    const { handler, log } = recordingHandler();
    server.addSubscriptionHandler(handler);
    const peer = await Peer.connect(server, "test");
    peer.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, "sub");
    await peer.waitFor((m) => m.id === undefined && m.params?._meta?.["io.modelcontextprotocol/subscriptionId"] === "sub", "the ack");
    const first = server.close();
    const second = server.close();
    let firstDone = false;
    void first.then(() => (firstDone = true));
    await second;
    assert.equal(firstDone, true, "the second call resolves only once the first shutdown has finished");
    await server.close();
    assert.equal(storeCloses, 1, "the task store is closed once");
    assert.equal(log.closes, 1, "handleClose runs once for the open stream");
    const completes = peer.messages.filter((m) => m.id === "sub" && m.result !== undefined);
    assert.equal(completes.length, 1, "the client gets one complete result");
  });
});

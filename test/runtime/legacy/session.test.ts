/**
 * A legacy (2025-11-25) session on the same server and handlers as the newer clients:
 * initialize and version negotiation, the legacy shapes of shared requests, and the
 * implicit streams a subscription handler written once serves.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer, InProcessEventSource, McpError } from "../../../packages/runtime/src/index.js";
import { createFanoutServer, fanoutHandler, type FanoutTopics } from "../../support/fanout-app.js";
import { recordingHandler } from "../../support/recording-handler.js";
import { LegacyPeer } from "../../support/legacy-peer.js";
import { REQUEST_META, until } from "../../support/runtime-peer.js";

const LEGACY = "2025-11-25";
const INITIALIZE = { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "legacy-test", version: "1" } };
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

describe("a legacy session", () => {
  it("initialize negotiates 2025-11-25 and advertises what the handlers fold, with logging", async () => {
    const server = createFanoutServer(new InProcessEventSource<FanoutTopics>(), "legacy");
    const peer = await LegacyPeer.open(server);
    const { result } = await peer.initialize();
    assert.equal(result.protocolVersion, LEGACY);
    assert.deepEqual(result.serverInfo, { name: "legacy", version: "1.0.0" });
    assert.equal(result.capabilities.tools.listChanged, true);
    assert.equal(result.capabilities.resources.subscribe, true);
    assert.deepEqual(result.capabilities.logging, {});
    assert.equal(result.resultType, undefined);
    await server.close();
  });

  it("lists and calls tools in the legacy shape: no resultType, cache fields or server-info _meta", async () => {
    const server = createFanoutServer(new InProcessEventSource<FanoutTopics>(), "legacy");
    const peer = await LegacyPeer.open(server);
    await peer.initialize();
    const listed = await peer.call("tools/list");
    assert.deepEqual(
      listed.result.tools.map((tool: { name: string }) => tool.name),
      ["fire"],
    );
    for (const key of ["resultType", "cacheScope", "ttlMs", "_meta"]) assert.equal(key in listed.result, false, key);
    const called = await peer.call("tools/call", { name: "fire", arguments: { tools: false, prompts: false } });
    assert.equal(called.result.content[0].text, "legacy fired 0 events");
    assert.equal("resultType" in called.result, false);
    await server.close();
  });

  it("receives list_changed for what the server advertises, without a subscription id, after initialized", async () => {
    const server = createFanoutServer(new InProcessEventSource<FanoutTopics>(), "legacy");
    const peer = await LegacyPeer.open(server);
    await peer.initialize();
    await peer.call("ping"); // initialized has been handled: the implicit stream is open
    await peer.call("tools/call", { name: "fire", arguments: { tools: true, prompts: false } });
    const changed = await peer.waitFor((m) => m.method === "notifications/tools/list_changed", "tools list_changed");
    assert.equal(changed.params?._meta?.[SUBSCRIPTION_ID], undefined);
    assert.equal(
      peer.messages.some((m) => m.method === "notifications/subscriptions/acknowledged"),
      false,
    );
    await server.close();
  });

  it("resources/subscribe opens a stream for that URI only; unsubscribe ends it with handleClose", async () => {
    const events = new InProcessEventSource<FanoutTopics>();
    const server = createFanoutServer(events, "legacy");
    const peer = await LegacyPeer.open(server);
    await peer.initialize();
    assert.deepEqual((await peer.call("resources/subscribe", { uri: "file:///a" })).result, {});
    await peer.call("tools/call", { name: "fire", arguments: { tools: false, prompts: false, resourceUris: ["file:///b", "file:///a"] } });
    const updated = await peer.waitFor((m) => m.method === "notifications/resources/updated", "resources/updated");
    assert.deepEqual(updated.params, { uri: "file:///a" });
    assert.deepEqual((await peer.call("resources/unsubscribe", { uri: "file:///a" })).result, {});
    await peer.call("tools/call", { name: "fire", arguments: { tools: false, prompts: false, resourceUris: ["file:///a"] } });
    await peer.call("ping");
    assert.equal(peer.messages.filter((m) => m.method === "notifications/resources/updated").length, 1);
    await server.close();
  });

  it("a handler that narrows a URI away makes resources/subscribe fail, and its handleClose runs", async () => {
    const server = createServer({ name: "narrow", version: "1" });
    const { handler, log } = recordingHandler({
      onSubscribe: (filter) => (filter.resourceSubscriptions ? { stream: 0, honored: { resourceSubscriptions: [] } } : { stream: 0 }),
    });
    server.addSubscriptionHandler(handler);
    const peer = await LegacyPeer.open(server);
    await peer.initialize();
    const refused = await peer.call("resources/subscribe", { uri: "file:///secret" });
    assert.equal(refused.error.code, -32602);
    assert.match(refused.error.message, /file:\/\/\/secret/);
    await until(() => log.closes === 1, "handleClose of the narrowed stream");
    await server.close();
  });

  it("a refusing handler's error is the resources/subscribe error", async () => {
    const server = createServer({ name: "refuse", version: "1" });
    const { handler } = recordingHandler({ onSubscribe: (filter) => (filter.resourceSubscriptions ? { stop: "forbidden" } : { stream: 0 }) });
    server.addSubscriptionHandler(handler);
    const peer = await LegacyPeer.open(server);
    await peer.initialize();
    const refused = await peer.call("resources/subscribe", { uri: "file:///x" });
    assert.ok(refused.error, "an error response");
    await server.close();
  });

  it("every implicit stream gets handleClose once when the connection ends", async () => {
    const server = createServer({ name: "close", version: "1" });
    const { handler, log } = recordingHandler();
    server.addSubscriptionHandler(handler);
    const peer = await LegacyPeer.open(server);
    await peer.initialize();
    await peer.call("resources/subscribe", { uri: "file:///a" });
    await until(() => log.calls.filter((call) => call === "subscribe").length === 2, "both implicit streams");
    await peer.transport.close();
    await until(() => log.closes === 2, "handleClose of both streams");
    await server.close();
    assert.equal(log.closes, 2);
  });

  it("a list-change stream its handler ends is opened again, and the client is told to re-list", async () => {
    const server = createServer({ name: "reopen", version: "1" });
    const { handler, log } = recordingHandler({ declares: { toolsListChanged: true } });
    server.addSubscriptionHandler(handler);
    const peer = await LegacyPeer.open(server);
    await peer.initialize();
    await until(() => log.channels.length === 1, "the list-change stream");
    log.channels[0]!.post({ stop: "the event source had a gap" });
    await until(() => log.channels.length === 2, "the stream opened again");
    const listChanges = () => peer.messages.filter((m) => m.method === "notifications/tools/list_changed").length;
    await until(() => listChanges() === 1, "a list change telling the client to re-list");
    log.channels[1]!.post({ send: { method: "notifications/tools/list_changed" } });
    await until(() => listChanges() === 2, "a later change on the reopened stream");
    await server.close();
  });

  it("a version the server does not serve is answered with the newest one it serves, never an error", async () => {
    const server = createServer({ name: "versions", version: "1" });
    const peer = await LegacyPeer.open(server);
    const { result } = await peer.call("initialize", { ...INITIALIZE, protocolVersion: "2099-01-01" });
    assert.equal(result.protocolVersion, LEGACY);
    assert.equal(server.legacySessions.size, 1);
    await server.close();
  });

  it("a refused initialize opens no session and fixes no era: a correct initialize then opens one", async () => {
    const server = createServer({ name: "refused", version: "1" });
    const peer = await LegacyPeer.open(server);
    const refused = await peer.call("initialize", { protocolVersion: LEGACY });
    assert.equal(refused.error.code, -32602);
    assert.equal(server.legacySessions.size, 0);
    const { result } = await peer.call("initialize", INITIALIZE);
    assert.equal(result.protocolVersion, LEGACY);
    assert.equal(server.legacySessions.size, 1);
    await server.close();
  });

  it("legacy.versions names what is served; a version the runtime has no facts for is refused when the server is made", async () => {
    const server = createServer({ name: "versions", version: "1", legacy: { versions: ["2025-03-26"] } });
    const peer = await LegacyPeer.open(server);
    const { result } = await peer.call("initialize", { ...INITIALIZE, protocolVersion: "2025-11-25" });
    assert.equal(result.protocolVersion, "2025-03-26");
    await server.close();
    assert.throws(
      () => createServer({ name: "x", version: "1", legacy: { versions: ["2023-01-01"] } }),
      /legacy\.versions: no facts for 2023-01-01; this runtime serves 2025-11-25, /,
    );
  });

  it("a modern-only server answers initialize with the versions it speaks", async () => {
    const server = createServer({ name: "modern", version: "1", legacy: false });
    const peer = await LegacyPeer.open(server);
    const { error } = await peer.call("initialize", INITIALIZE);
    assert.equal(error.code, -32602);
    assert.deepEqual(error.data.supported, ["2026-07-28"]);
    await server.close();
  });

  it("requests before initialize and unknown legacy methods are refused", async () => {
    const server = createServer({ name: "order", version: "1" });
    server.setRequestHandler("tools/list", () => ({ tools: [], cacheScope: "private" as const, ttlMs: 0 }));
    const peer = await LegacyPeer.open(server);
    // Before initialize the connection is not in a legacy session: the newer revision's checks answer.
    assert.match((await peer.call("tools/list")).error.message, /_meta/);
    await peer.initialize();
    assert.equal((await peer.call("tasks/list")).error.code, -32601);
    assert.deepEqual((await peer.call("tools/list")).result, { tools: [] });
    await server.close();
  });

  it("logging/setLevel sets the level request-scoped logs are filtered by", async () => {
    const server = createServer({ name: "logs", version: "1" });
    server.addTool({ name: "talk", inputSchema: { type: "object" } }, (_args, context) => {
      context.sendLog({ level: "info", data: "quiet" });
      context.sendLog({ level: "error", data: "loud" });
      return { content: [] };
    });
    const peer = await LegacyPeer.open(server);
    await peer.initialize();
    await peer.call("tools/call", { name: "talk", arguments: {} });
    assert.equal(peer.messages.filter((m) => m.method === "notifications/message").length, 2, "every level before setLevel");
    peer.messages.length = 0;
    assert.deepEqual((await peer.call("logging/setLevel", { level: "warning" })).result, {});
    await peer.call("tools/call", { name: "talk", arguments: {} });
    assert.deepEqual(
      peer.messages.filter((m) => m.method === "notifications/message").map((m) => m.params.data),
      ["loud"],
    );
    await server.close();
  });

  it("a server/discover probe does not fix the era: an initialize after it opens a session", async () => {
    const server = createServer({ name: "era", version: "1" });
    server.addSubscriptionHandler(fanoutHandler(new InProcessEventSource<FanoutTopics>()));
    const peer = await LegacyPeer.open(server);
    void peer.transport.sendMessage({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: REQUEST_META } });
    const probe = await peer.response(1);
    assert.ok(probe.result, "the probe is answered as a modern request");
    const { result } = await peer.call("initialize", INITIALIZE);
    assert.equal(result.protocolVersion, LEGACY);
    assert.equal(server.legacySessions.size, 1);
    await server.close();
  });

  it("a connection that served another modern request stays in that revision: initialize is refused there", async () => {
    const server = createServer({ name: "era", version: "1" });
    server.setRequestHandler("tools/list", () => ({ tools: [], cacheScope: "private" as const, ttlMs: 0 }));
    const peer = await LegacyPeer.open(server);
    void peer.transport.sendMessage({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: REQUEST_META } });
    await peer.response(1);
    const { error } = await peer.call("initialize", INITIALIZE);
    assert.equal(error.code, -32602);
    await server.close();
  });
});

describe("an initialize in the newer revision's shape", () => {
  it("is the removed method (-32601), not a legacy session", async () => {
    const server = createServer({ name: "modern-shape", version: "1" });
    const peer = await LegacyPeer.open(server);
    void peer.transport.sendMessage({ jsonrpc: "2.0", id: 7, method: "initialize", params: { ...INITIALIZE, _meta: REQUEST_META } });
    const { error } = await peer.response(7);
    assert.equal(error.code, -32601);
    assert.equal(server.legacySessions.size, 0);
    await server.close();
  });
});

describe("errors whose code moved between the revisions", () => {
  it("a resource that does not exist is -32002 for a legacy client, as the handler's -32602 is for a newer one", async () => {
    const server = createServer({ name: "codes", version: "1" });
    server.setRequestHandler("resources/read", (params) => {
      throw new McpError(-32602, `Resource not found: ${params.uri}`, { uri: params.uri });
    });
    const peer = await LegacyPeer.open(server);
    await peer.initialize();
    const { error } = await peer.call("resources/read", { uri: "file:///missing" });
    assert.equal(error.code, -32002);
    assert.deepEqual(error.data, { uri: "file:///missing" });
    await server.close();
  });

  it("only the not-found answer moves: any other -32602 from resources/read stays -32602", async () => {
    const server = createServer({ name: "codes", version: "1" });
    server.setRequestHandler("resources/read", () => {
      throw new McpError(-32602, "uri must be an absolute URI");
    });
    const peer = await LegacyPeer.open(server);
    await peer.initialize();
    const { error } = await peer.call("resources/read", { uri: "relative" });
    assert.equal(error.code, -32602);
    await server.close();
  });
});

describe("an answer a legacy client cannot take", () => {
  it("an input-required result that asks for nothing becomes an error naming why, not a half result", async () => {
    const server = createServer({ name: "input", version: "1" });
    server.setRequestHandler("tools/call", () => ({ resultType: "input_required", inputRequests: {} }) as never);
    const peer = await LegacyPeer.open(server);
    await peer.initialize();
    const { error, result } = await peer.call("tools/call", { name: "ask", arguments: {} });
    assert.equal(result, undefined);
    assert.equal(error.code, -32603);
    assert.match(error.message, /input_required without inputRequests/);
    await server.close();
  });
});

describe("server shutdown", () => {
  it("ends every legacy session: each implicit stream gets handleClose once, the registry is empty", async () => {
    const server = createServer({ name: "shutdown", version: "1" });
    const { handler, log } = recordingHandler();
    server.addSubscriptionHandler(handler);
    const peers = [await LegacyPeer.open(server), await LegacyPeer.open(server)];
    for (const peer of peers) {
      await peer.initialize();
      await peer.call("resources/subscribe", { uri: "file:///a" });
    }
    await until(() => log.calls.filter((call) => call === "subscribe").length === 4, "two implicit streams per session");
    assert.equal(server.legacySessions.size, 2);
    await server.close();
    assert.equal(log.closes, 4);
    assert.equal(server.legacySessions.size, 0);
  });
});

/**
 * Server-to-client requests for legacy sessions (legacy/server-requests.ts and
 * legacy/input-rounds.ts): a handler that asks through `input.ask` is served to a
 * 2025-11-25 client by sending it the matching request and running the handler again with
 * the answer. Over an in-memory pair (the stdio path) and over Streamable HTTP.
 */
import assert from "node:assert/strict";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { createServer, inputRequest, MAX_INPUT_ROUNDS, type LegacyOptions, type Server, type ToolRunner } from "../../../packages/runtime/src/index.js";
import { NdjsonTransport } from "../../../packages/runtime/src/transports/index.js";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { LegacyPeer, LEGACY_INITIALIZE, openLegacySession, postLegacy, SseMessages } from "../../support/legacy-peer.js";
import { deferred, until } from "../../support/runtime-peer.js";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const nameQuestion = inputRequest.elicit({
  mode: "form",
  message: "Your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } } },
});
const ELICITING = { ...LEGACY_INITIALIZE, capabilities: { elicitation: {} } };
const EVERYTHING = { ...LEGACY_INITIALIZE, capabilities: { elicitation: {}, sampling: {}, roots: {} } };

interface Observed {
  runs: number;
  aborted: boolean;
  started: ReturnType<typeof deferred<void>>;
}

function askingServer(legacy: LegacyOptions = {}): { server: Server; observed: Observed } {
  const observed: Observed = { runs: 0, aborted: false, started: deferred<void>() };
  const server = createServer({ name: "asking", version: "1", legacy });
  const tool = (name: string, run: ToolRunner) => server.addTool({ name, inputSchema: { type: "object" } }, run);
  tool("ask_name", (_args, _context, input) => {
    observed.runs++;
    const answer = input.response("name", "elicitation/create");
    if (answer === undefined) return input.ask({ name: nameQuestion }, "first-round");
    return text(`Hello, ${String(answer.content?.name)} (state ${input.state})`);
  });
  tool("ask_twice", (_args, _context, input) => {
    if (input.state === "second") return text(`color ${String(input.response("color", "elicitation/create")?.content?.color)}`);
    if (input.state === "first") return input.ask({ color: nameQuestion }, "second");
    return input.ask({ name: nameQuestion }, "first");
  });
  tool("ask_all", (_args, _context, input) => {
    if (input.responses === undefined) {
      return input.ask({
        name: nameQuestion,
        model: inputRequest.sample({ messages: [{ role: "user", content: { type: "text", text: "Hi?" } }], maxTokens: 10 }),
        roots: inputRequest.listRoots(),
      });
    }
    const sampled = input.response("model", "sampling/createMessage")?.content;
    const said = sampled !== undefined && !Array.isArray(sampled) && sampled.type === "text" ? sampled.text : "?";
    const roots = (input.response("roots", "roots/list")?.roots ?? []).map((root) => root.uri).join(",");
    return text(`${String(input.response("name", "elicitation/create")?.content?.name)} / ${said} / ${roots}`);
  });
  tool("slow", async (_args, context) => {
    observed.started.resolve();
    await new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve(), { once: true }));
    observed.aborted = true;
    return text("stopped");
  });
  return { server, observed };
}

async function withHttp(server: Server, run: (handle: HttpServerHandle) => Promise<void>): Promise<void> {
  const handle = await serveHttp(server);
  try {
    await run(handle);
  } finally {
    await handle.close();
    await server.close();
  }
}

describe("server-to-client requests for a legacy session over a message stream (the stdio path)", () => {
  it("a tool that asks through input.ask sends elicitation/create and resumes with the answer as the retry", async () => {
    const { server, observed } = askingServer();
    const peer = await LegacyPeer.open(server);
    await peer.initialize(ELICITING);
    const call = peer.start("tools/call", { name: "ask_name", arguments: {} });
    const asked = await peer.waitFor((m) => m.method === "elicitation/create", "the elicitation request");
    assert.notEqual(asked.id, undefined, "it is a request");
    assert.equal(asked.params.message, "Your name?");
    peer.reply(asked.id, { action: "accept", content: { name: "Ada" } });
    const { result } = await peer.response(call);
    assert.deepEqual(result.content, [{ type: "text", text: "Hello, Ada (state first-round)" }]);
    assert.equal(result.resultType, undefined, "the legacy shape");
    assert.equal(observed.runs, 2, "the handler ran once more with the answer");
    await server.close();
  });

  it("several requests of one round are sent at once, and each later round is asked in turn", async () => {
    const { server } = askingServer();
    const peer = await LegacyPeer.open(server);
    await peer.initialize(EVERYTHING);
    const all = peer.start("tools/call", { name: "ask_all", arguments: {} });
    for (const [method, answer] of [
      ["elicitation/create", { action: "accept", content: { name: "Ada" } }],
      ["sampling/createMessage", { role: "assistant", content: { type: "text", text: "hello" }, model: "m" }],
      ["roots/list", { roots: [{ uri: "file:///work" }] }],
    ] as const) {
      const asked = await peer.waitFor((m) => m.method === method, method);
      peer.reply(asked.id, answer);
    }
    assert.equal((await peer.response(all)).result.content[0].text, "Ada / hello / file:///work");
    const asks = () => peer.messages.filter((m) => m.method === "elicitation/create");
    const before = asks().length;
    const twice = peer.start("tools/call", { name: "ask_twice", arguments: {} });
    await until(() => asks().length === before + 1, "round 1");
    peer.reply(asks()[before]!.id, { action: "accept", content: { name: "Ada" } });
    await until(() => asks().length === before + 2, "round 2");
    peer.reply(asks()[before + 1]!.id, { action: "accept", content: { color: "blue" } });
    assert.equal((await peer.response(twice)).result.content[0].text, "color blue");
    await server.close();
  });

  it("a prompt that asks is served the same way, and a handler that keeps asking stops after MAX_INPUT_ROUNDS rounds", async () => {
    const { server } = askingServer();
    server.addPrompt({ name: "greeting" }, (_args, _context, input) => {
      const answer = input.response("name", "elicitation/create");
      if (answer === undefined) return input.ask({ name: nameQuestion });
      return { messages: [{ role: "user", content: { type: "text", text: `Greet ${String(answer.content?.name)}` } }] };
    });
    server.addTool({ name: "ask_forever", inputSchema: { type: "object" } }, (_args, _context, input) => input.ask({ again: nameQuestion }));
    const peer = await LegacyPeer.open(server);
    await peer.initialize(ELICITING);
    const answerEvery = () => {
      for (const asked of peer.messages.filter((m) => m.method === "elicitation/create" && !answered.has(m.id))) {
        answered.add(asked.id);
        peer.reply(asked.id, { action: "accept", content: { name: "Ada" } });
      }
    };
    const answered = new Set<unknown>();
    const prompt = peer.start("prompts/get", { name: "greeting" });
    await until(() => (answerEvery(), peer.messages.some((m) => m.id === prompt)), "the prompt");
    assert.equal((await peer.response(prompt)).result.messages[0].content.text, "Greet Ada");
    const forever = peer.start("tools/call", { name: "ask_forever", arguments: {} });
    await until(() => (answerEvery(), peer.messages.some((m) => m.id === forever)), "the endless tool's answer");
    assert.match((await peer.response(forever)).error.message, new RegExp(`asked for more input ${MAX_INPUT_ROUNDS} times`));
    assert.equal(answered.size, 1 + MAX_INPUT_ROUNDS, "one ask per round, no more");
    await server.close();
  });

  it("an input request the client did not declare the capability for is not sent: the call fails naming the capability", async () => {
    const { server, observed } = askingServer();
    const peer = await LegacyPeer.open(server);
    await peer.initialize(); // no capabilities
    const { error } = await peer.call("tools/call", { name: "ask_name", arguments: {} });
    assert.equal(error.code, -32600);
    assert.match(error.message, /elicitation\/create.*"elicitation".*did not declare/);
    assert.equal(observed.runs, 1);
    assert.equal(peer.messages.filter((m) => m.method === "elicitation/create").length, 0, "nothing was asked");
    const urlMode = await LegacyPeer.open(server);
    await urlMode.initialize({ ...LEGACY_INITIALIZE, capabilities: { elicitation: { url: {} } } });
    const formOnly = await urlMode.call("tools/call", { name: "ask_name", arguments: {} });
    assert.match(formOnly.error.message, /"elicitation\.form"/, "a client declaring url mode only is not sent a form");
    server.addTool({ name: "ask_with_context", inputSchema: { type: "object" } }, (_args, _context, input) =>
      input.ask({ model: inputRequest.sample({ messages: [], maxTokens: 5, includeContext: "thisServer" }) }),
    );
    const sampling = await LegacyPeer.open(server);
    await sampling.initialize({ ...LEGACY_INITIALIZE, capabilities: { sampling: {} } });
    const withContext = await sampling.call("tools/call", { name: "ask_with_context", arguments: {} });
    assert.match(withContext.error.message, /"sampling\.context"/, "includeContext beyond none needs sampling.context");
    await server.close();
  });

  it("an answer for an id the session never sent is dropped and changes nothing", async () => {
    const { server } = askingServer();
    const peer = await LegacyPeer.open(server);
    await peer.initialize(ELICITING);
    const call = peer.start("tools/call", { name: "ask_name", arguments: {} });
    const asked = await peer.waitFor((m) => m.method === "elicitation/create", "the elicitation request");
    peer.reply(12345, { action: "accept", content: { name: "Mallory" } });
    peer.reply(asked.id, { action: "accept", content: { name: "Ada" } });
    assert.match((await peer.response(call)).result.content[0].text, /Hello, Ada/);
    await server.close();
  });

  it("an answer after the timeout is dropped: the call fails naming the timeout and the client is told the request is cancelled", async () => {
    const { server, observed } = askingServer({ clientRequestTimeoutMs: 20 });
    const peer = await LegacyPeer.open(server);
    await peer.initialize(ELICITING);
    const call = peer.start("tools/call", { name: "ask_name", arguments: {} });
    const asked = await peer.waitFor((m) => m.method === "elicitation/create", "the elicitation request");
    const { error } = await peer.response(call);
    assert.match(error.message, /did not answer within 20 ms/);
    const cancelled = await peer.waitFor((m) => m.method === "notifications/cancelled", "the cancellation");
    assert.equal(cancelled.params.requestId, asked.id);
    peer.reply(asked.id, { action: "accept", content: { name: "late" } });
    await peer.call("ping");
    assert.equal(observed.runs, 1, "the late answer resumed nothing");
    await server.close();
  });

  it("cancelling the tool call while it waits cancels the request sent to the client", async () => {
    const { server } = askingServer();
    const peer = await LegacyPeer.open(server);
    await peer.initialize(ELICITING);
    const call = peer.start("tools/call", { name: "ask_name", arguments: {} });
    const asked = await peer.waitFor((m) => m.method === "elicitation/create", "the elicitation request");
    peer.notify("notifications/cancelled", { requestId: call });
    const cancelled = await peer.waitFor((m) => m.method === "notifications/cancelled", "the cancellation");
    assert.equal(cancelled.params.requestId, asked.id);
    await peer.call("ping");
    assert.equal(peer.messages.filter((m) => m.id === call && m.method === undefined).length, 0, "a cancelled request gets no answer");
    await server.close();
  });

  it("at the bound on outstanding requests a handler's further asks fail with the limit, and nothing beyond it is sent", async () => {
    const { server } = askingServer({ maxClientRequests: 2 });
    const peer = await LegacyPeer.open(server);
    await peer.initialize(EVERYTHING);
    const { error } = await peer.call("tools/call", { name: "ask_all", arguments: {} });
    assert.match(error.message, /more answers from this client than may wait at once/);
    const first = peer.start("tools/call", { name: "ask_name", arguments: {} });
    const second = peer.start("tools/call", { name: "ask_name", arguments: {} });
    await until(() => peer.messages.filter((m) => m.method === "elicitation/create").length === 2, "two requests waiting");
    const third = await peer.call("tools/call", { name: "ask_name", arguments: {} });
    assert.match(third.error.message, /more answers from this client than may wait at once/);
    assert.equal(peer.messages.filter((m) => m.method === "elicitation/create").length, 2);
    for (const asked of peer.messages.filter((m) => m.method === "elicitation/create")) peer.reply(asked.id, { action: "decline" });
    for (const id of [first, second]) assert.ok((await peer.response(id)).result, "each waiting call completes once answered");
    await server.close();
  });

  it("the client's input ending (stdin EOF) fails the waiting request at once: the call is answered with why", async () => {
    const { server, observed } = askingServer();
    const input = new PassThrough();
    const output = new PassThrough();
    await server.connect(new NdjsonTransport({ readable: input, writable: output }, { drainTimeoutMs: 5000 })); // as stdio sets it
    const lines = createInterface({ input: output });
    const messages: any[] = [];
    lines.on("line", (line) => void messages.push(JSON.parse(line)));
    const write = (message: unknown) => input.write(`${JSON.stringify(message)}\n`);
    write({ jsonrpc: "2.0", id: 1, method: "initialize", params: ELICITING });
    write({ jsonrpc: "2.0", method: "notifications/initialized" });
    write({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "ask_name", arguments: {} } });
    await until(() => messages.some((m) => m.method === "elicitation/create"), "the elicitation request");
    input.end();
    await until(() => messages.some((m) => m.id === 2), "the call's answer");
    assert.match(messages.find((m) => m.id === 2).error.message, /input ended before it answered/);
    assert.equal(observed.runs, 1);
    await until(() => server.legacySessions.size === 0, "the session ended");
    await server.close();
  });
});

describe("server-to-client requests for a legacy session over Streamable HTTP", () => {
  it("the request travels on the SSE response of the POST that caused it, and the answer POSTed with the session id resumes the tool", async () => {
    const { server } = askingServer();
    await withHttp(server, async (handle) => {
      const session = await openLegacySession(handle, { elicitation: {} });
      const stream = new SseMessages(
        await postLegacy(handle, { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "ask_name", arguments: {} } }, session),
      );
      assert.equal(stream.response.headers.get("content-type"), "text/event-stream");
      const asked = await stream.next((m) => m.method === "elicitation/create");
      const answered = await postLegacy(handle, { jsonrpc: "2.0", id: asked!.id, result: { action: "accept", content: { name: "Ada" } } }, session);
      assert.equal(answered.status, 202);
      const result = await stream.next((m) => m.id === 7);
      assert.match(result!.result.content[0].text, /Hello, Ada/);
    });
  });

  it("an answer for an unknown id, a late one, or one from another session is refused with 400", async () => {
    const { server } = askingServer({ clientRequestTimeoutMs: 20 });
    await withHttp(server, async (handle) => {
      const session = await openLegacySession(handle, { elicitation: {} });
      const unknown = await postLegacy(handle, { jsonrpc: "2.0", id: 999, result: {} }, session);
      assert.equal(unknown.status, 400);
      assert.match(((await unknown.json()) as any).error.message, /must not send JSON-RPC responses/);
      const stream = new SseMessages(
        await postLegacy(handle, { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "ask_name", arguments: {} } }, session),
      );
      const asked = await stream.next((m) => m.method === "elicitation/create");
      const other = await openLegacySession(handle, { elicitation: {} });
      assert.equal((await postLegacy(handle, { jsonrpc: "2.0", id: asked!.id, result: { action: "decline" } }, other)).status, 400, "another session's answer");
      const failed = await stream.next((m) => m.id === 8);
      assert.match(failed!.error.message, /did not answer within 20 ms/);
      const late = await postLegacy(handle, { jsonrpc: "2.0", id: asked!.id, result: { action: "accept", content: { name: "late" } } }, session);
      assert.equal(late.status, 400, "the late answer is dropped");
    });
  });

  it("DELETE ends the session: the waiting POST ends without an answer and its answer is refused after", async () => {
    const { server } = askingServer();
    await withHttp(server, async (handle) => {
      const session = await openLegacySession(handle, { elicitation: {} });
      const stream = new SseMessages(
        await postLegacy(handle, { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "ask_name", arguments: {} } }, session),
      );
      const asked = await stream.next((m) => m.method === "elicitation/create");
      assert.equal((await fetch(handle.url, { method: "DELETE", headers: { "mcp-session-id": session } })).status, 204);
      assert.equal(await stream.next((m) => m.id === 9), undefined, "the stream ended with no answer");
      assert.equal((await postLegacy(handle, { jsonrpc: "2.0", id: asked!.id, result: { action: "decline" } }, session)).status, 404);
    });
  });

  it("notifications/cancelled POSTed separately aborts the request another POST of the same session is running", async () => {
    const { server, observed } = askingServer();
    await withHttp(server, async (handle) => {
      const session = await openLegacySession(handle);
      const running = postLegacy(handle, { jsonrpc: "2.0", id: "slow-1", method: "tools/call", params: { name: "slow", arguments: {} } }, session);
      await observed.started.promise;
      const other = await openLegacySession(handle);
      await (await postLegacy(handle, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "slow-1" } }, other)).text();
      assert.equal(observed.aborted, false, "another session cannot cancel it");
      const cancel = await postLegacy(handle, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "slow-1", reason: "user" } }, session);
      assert.equal(cancel.status, 202);
      await until(() => observed.aborted, "the tool's signal aborted");
      const stream = new SseMessages(await running);
      assert.equal(await stream.next((m) => m.id === "slow-1"), undefined, "a cancelled request gets no answer");
    });
  });
});

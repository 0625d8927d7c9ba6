import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer, inputRequest, type InputRequiredMethod } from "../../packages/runtime/src/index.js";
import { RequestStateSealer, STATE_TTL_MS } from "../../packages/runtime/src/input-required.js";
import { Peer } from "../support/runtime-peer.js";

const T = { timeout: 20_000 };
const elicitName = inputRequest.elicit({ mode: "form", message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } });

/** A tool that asks for a name with a sealed state "asked", then greets with the typed answer. */
function askingServer(stateKey?: string) {
  const server = createServer({ name: "ask", version: "1", stateKey });
  const runs: string[] = [];
  const greet = (tool: string) =>
    server.addTool({ name: tool, inputSchema: { type: "object" } }, (_args, _context, input) => {
      runs.push(input.state ?? "(none)");
      const answer = input.response("user", "elicitation/create");
      if (input.state !== "asked" || answer === undefined) return input.ask({ user: elicitName }, "asked");
      return { content: [{ type: "text", text: `Hello, ${String(answer.content?.name)}` }] };
    });
  greet("greet");
  greet("other");
  return { server, runs };
}

const answer = { user: { action: "accept", content: { name: "Ada" } } };

describe("input-required results: ask, retry with answers, sealed request state", () => {
  it("the first call answers input_required with the requests and a sealed state; the retry reads the typed answer", T, async () => {
    const { server } = askingServer();
    const peer = await Peer.connect(server, "test");
    const first = (await peer.request("tools/call", { name: "greet", arguments: { a: 1, b: 2 } })).result;
    assert.equal(first.resultType, "input_required");
    assert.deepEqual(first.inputRequests, { user: elicitName });
    assert.equal(typeof first.requestState, "string");
    assert.doesNotMatch(first.requestState, /asked/, "the state is not readable as sent");
    // Arguments in another key order are the same request.
    const retry = await peer.request("tools/call", { name: "greet", arguments: { b: 2, a: 1 }, inputResponses: answer, requestState: first.requestState });
    assert.equal(retry.result.resultType, "complete");
    assert.equal(retry.result.content[0].text, "Hello, Ada");
    await server.close();
  });

  it("a tampered state, or one replayed on another tool or other arguments, is -32602 and the tool never runs", T, async () => {
    const { server, runs } = askingServer();
    const peer = await Peer.connect(server, "test");
    const { requestState } = (await peer.request("tools/call", { name: "greet", arguments: { a: 1 } })).result;
    runs.length = 0;
    const [body, mac] = requestState.split(".");
    const forged = Buffer.from(JSON.stringify({ s: "asked", e: Date.now() + 1e9 })).toString("base64url");
    const attempts = [
      { name: "greet", arguments: { a: 1 }, requestState: `${body}.${mac.slice(0, -2)}AA` },
      { name: "greet", arguments: { a: 1 }, requestState: `${forged}.${mac}` },
      { name: "greet", arguments: { a: 2 }, requestState },
      { name: "other", arguments: { a: 1 }, requestState },
      { name: "greet", arguments: { a: 1 }, requestState: 42 },
    ];
    for (const params of attempts) {
      const response = await peer.request("tools/call", { ...params, inputResponses: answer });
      assert.equal(response.error?.code, -32602, JSON.stringify(params));
      assert.match(response.error.message, /requestState/);
    }
    assert.deepEqual(runs, []);
    await server.close();
  });

  it("a state sealed by a server with another key is refused; one with the same key (another process) is accepted", T, async () => {
    const one = askingServer("key-one");
    const two = askingServer("key-one");
    const three = askingServer("key-two");
    const peers = await Promise.all([one, two, three].map(({ server }) => Peer.connect(server, "test")));
    const { requestState } = (await peers[0].request("tools/call", { name: "greet" })).result;
    const retry = { name: "greet", inputResponses: answer, requestState };
    assert.equal((await peers[1].request("tools/call", retry)).result?.content?.[0]?.text, "Hello, Ada");
    assert.equal((await peers[2].request("tools/call", retry)).error?.code, -32602);
    await Promise.all([one, two, three].map(({ server }) => server.close()));
  });

  it("a sealed state is bound to its principal and single use: another principal's retry and a replay are -32602", T, async () => {
    const { server, runs } = askingServer();
    const alice = await Peer.connect(server, "test", { principal: { issuer: "https://as.example", subject: "alice" } });
    const bob = await Peer.connect(server, "test", { principal: { issuer: "https://as.example", subject: "bob" } });
    const { requestState } = (await alice.request("tools/call", { name: "greet" })).result;
    const retry = { name: "greet", inputResponses: answer, requestState };
    runs.length = 0;
    const stolen = await bob.request("tools/call", retry);
    assert.equal(stolen.error?.code, -32602);
    assert.match(stolen.error.message, /integrity/);
    assert.equal((await alice.request("tools/call", retry)).result?.content?.[0]?.text, "Hello, Ada");
    const replayed = await alice.request("tools/call", retry);
    assert.equal(replayed.error?.code, -32602);
    assert.match(replayed.error.message, /already been used/);
    assert.deepEqual(runs, ["asked"], "the tool ran once, for its owner's first retry");
    await server.close();
  });

  it("at most maxUsedRequestStates states are remembered as used; beyond, a retry is refused until some expire", () => {
    const sealer = new RequestStateSealer("k", 2);
    const seals = [0, 1, 2].map(() => sealer.seal("s", "binding", 1_000));
    assert.equal(sealer.open(seals[0], "binding", 2_000), "s");
    assert.equal(sealer.open(seals[1], "binding", 2_000), "s");
    assert.throws(() => sealer.open(seals[2], "binding", 2_000), /limit/);
    assert.throws(() => sealer.open(seals[0], "binding", 2_000), /already been used/);
    // Once the used ones expire they are forgotten, and a fresh state opens.
    const later = 1_000 + STATE_TTL_MS + 1;
    const fresh = sealer.seal("t", "binding", later);
    assert.equal(sealer.open(fresh, "binding", later + 1), "t");
  });

  it("an expired state is refused", () => {
    const sealer = new RequestStateSealer("k");
    const sealed = sealer.seal("s", "binding", 1_000);
    assert.equal(sealer.open(sealed, "binding", 1_000 + STATE_TTL_MS), "s");
    assert.throws(() => sealer.open(sealed, "binding", 1_001 + STATE_TTL_MS), /expired/);
  });

  it("inputResponses that are not an object of result objects are -32602", T, async () => {
    const { server, runs } = askingServer();
    const peer = await Peer.connect(server, "test");
    for (const inputResponses of [[], "x", { user: 1 }, { user: null }]) {
      assert.equal((await peer.request("tools/call", { name: "greet", inputResponses })).error?.code, -32602, JSON.stringify(inputResponses));
    }
    assert.deepEqual(runs, []);
    await server.close();
  });

  it("a prompt asks the same way and reads the answer on retry", T, async () => {
    const server = createServer({ name: "ask", version: "1" });
    server.addPrompt({ name: "intro" }, (_args, _context, input) => {
      const given = input.response("user", "elicitation/create");
      if (given === undefined) return input.ask({ user: elicitName });
      return { messages: [{ role: "user", content: { type: "text", text: `About ${String(given.content?.name)}` } }] };
    });
    const peer = await Peer.connect(server, "test");
    const first = (await peer.request("prompts/get", { name: "intro" })).result;
    assert.equal(first.resultType, "input_required");
    assert.equal(first.requestState, undefined);
    const retry = (await peer.request("prompts/get", { name: "intro", inputResponses: answer })).result;
    assert.equal(retry.messages[0].content.text, "About Ada");
    await server.close();
  });
});

describe("input-required results in the typed handler map", () => {
  it("setRequestHandler lets exactly the methods whose params carry inputResponses answer input_required", T, async () => {
    type Equal<A, B> = (<V>() => V extends A ? 1 : 2) extends <V>() => V extends B ? 1 : 2 ? true : false;
    const exact: Equal<InputRequiredMethod, "tools/call" | "prompts/get" | "resources/read"> = true;
    assert.equal(exact, true);
    const server = createServer({ name: "map", version: "1" });
    server.setRequestHandler("resources/read", () => ({ resultType: "input_required", inputRequests: { user: elicitName } }));
    // @ts-expect-error: tools/list cannot answer input_required
    server.setRequestHandler("tools/list", () => ({ resultType: "input_required" as const, inputRequests: {} }));
    const peer = await Peer.connect(server, "test");
    const read = (await peer.request("resources/read", { uri: "x://y" })).result;
    assert.equal(read.resultType, "input_required");
    assert.deepEqual(read.inputRequests, { user: elicitName });
    await server.close();
  });
});

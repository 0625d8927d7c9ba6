import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer } from "../../../packages/runtime/src/index.js";
import { Peer } from "../../support/runtime-peer.js";

const T = { timeout: 20_000 };

function promptServer(seen: unknown[] = []) {
  const server = createServer({ name: "prompts", version: "1" });
  server.addPrompt(
    { name: "greet", description: "Greets someone", arguments: [{ name: "who", required: true }, { name: "tone" }] },
    (args) => {
      seen.push(args);
      // Typed without `as const`: who is a string, tone may be undefined.
      const who: string = args.who;
      const tone: string | undefined = args.tone;
      // @ts-expect-error: an undeclared argument does not exist on args
      void args.other;
      return { messages: [{ role: "user", content: { type: "text", text: `${tone ?? "Hello"}, ${who}` } }] };
    },
    { complete: { tone: (value) => ["Hello", "Hi", "Howdy"].filter((tone) => tone.startsWith(value)) } },
  );
  server.addPrompt({ name: "plain" }, () => ({ messages: [] }));
  return server;
}

describe("typed prompts", () => {
  it("prompts/list serves the prompts as registered, arguments included", T, async () => {
    const server = promptServer();
    const peer = await Peer.connect(server, "test");
    const { result } = await peer.request("prompts/list");
    assert.deepEqual(result.prompts, [
      { name: "greet", description: "Greets someone", arguments: [{ name: "who", required: true }, { name: "tone" }] },
      { name: "plain" },
    ]);
    assert.equal(result.cacheScope, "private");
    await server.close();
  });

  it("prompts/get passes only the declared arguments to get", T, async () => {
    const seen: unknown[] = [];
    const server = promptServer(seen);
    const peer = await Peer.connect(server, "test");
    const { result } = await peer.request("prompts/get", { name: "greet", arguments: { who: "Ada", extra: "x" } });
    assert.deepEqual(result.messages, [{ role: "user", content: { type: "text", text: "Hello, Ada" } }]);
    assert.deepEqual(seen, [{ who: "Ada" }]);
    await server.close();
  });

  it("a missing required argument, a non-string one, or an unknown prompt is -32602 and get never runs", T, async () => {
    const seen: unknown[] = [];
    const server = promptServer(seen);
    const peer = await Peer.connect(server, "test");
    const missing = await peer.request("prompts/get", { name: "greet", arguments: { tone: "Hi" } });
    assert.equal(missing.error?.code, -32602);
    assert.deepEqual(missing.error?.data, { missing: ["who"] });
    assert.equal((await peer.request("prompts/get", { name: "greet", arguments: { who: 3 } })).error?.code, -32602);
    assert.equal((await peer.request("prompts/get", { name: "nope" })).error?.code, -32602);
    assert.deepEqual(seen, []);
    await server.close();
  });

  it("a completer for an argument the prompt does not declare is refused at registration", () => {
    const server = createServer({ name: "prompts", version: "1" });
    assert.throws(
      () =>
        server.addPrompt({ name: "p", arguments: [{ name: "a" }] }, () => ({ messages: [] }), {
          // @ts-expect-error: "b" is not an argument of p
          complete: { b: () => [] },
        }),
      /not one of its arguments/,
    );
  });

  it("server/discover advertises prompts, and completions because greet completes", T, async () => {
    const server = promptServer();
    const peer = await Peer.connect(server, "test");
    assert.deepEqual((await peer.request("server/discover")).result.capabilities, { prompts: {}, completions: {}, logging: {} });
    await server.close();
  });
});

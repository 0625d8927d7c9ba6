import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer } from "../../../packages/runtime/src/index.js";
import { Peer } from "../../support/runtime-peer.js";

const T = { timeout: 20_000 };

function completingServer() {
  const server = createServer({ name: "complete", version: "1" });
  server.addPrompt(
    {
      name: "trip",
      arguments: [
        { name: "country", required: true },
        { name: "city", required: true },
      ],
    },
    () => ({ messages: [] }),
    {
      complete: {
        country: (value) => ["France", "Finland"].filter((name) => name.startsWith(value)),
        city: (value, { arguments: known }) => (known.country === "France" ? ["Paris", "Pau"] : ["Helsinki"]).filter((name) => name.startsWith(value)),
      },
    },
  );
  server.addResourceTemplate({ uriTemplate: "numbers://{n}", name: "numbers" }, (_uri, { n }) => n, {
    complete: { n: () => Array.from({ length: 250 }, (_, index) => String(index)) },
  });
  return server;
}

const ask = (ref: object, name: string, value: string, context?: object) => ({ ref, argument: { name, value }, ...(context ? { context } : {}) });

describe("completion for prompt arguments and template variables", () => {
  it("a prompt argument's completer gets the typed value and the other arguments already resolved", T, async () => {
    const server = completingServer();
    const peer = await Peer.connect(server, "test");
    const prompt = { type: "ref/prompt", name: "trip" };
    assert.deepEqual((await peer.request("completion/complete", ask(prompt, "country", "F"))).result.completion, {
      values: ["France", "Finland"],
      total: 2,
      hasMore: false,
    });
    const city = await peer.request("completion/complete", ask(prompt, "city", "P", { arguments: { country: "France" } }));
    assert.deepEqual(city.result.completion.values, ["Paris", "Pau"]);
    await server.close();
  });

  it("a template variable's completer is cut to the spec's 100 values, with total and hasMore", T, async () => {
    const server = completingServer();
    const peer = await Peer.connect(server, "test");
    const { result } = await peer.request("completion/complete", ask({ type: "ref/resource", uri: "numbers://{n}" }, "n", ""));
    assert.equal(result.completion.values.length, 100);
    assert.equal(result.completion.total, 250);
    assert.equal(result.completion.hasMore, true);
    await server.close();
  });

  it("an argument without a completer gets no values; an unknown prompt or template, or a bad ref, is -32602", T, async () => {
    const server = completingServer();
    server.addPrompt({ name: "bare", arguments: [{ name: "x" }] }, () => ({ messages: [] }));
    const peer = await Peer.connect(server, "test");
    const none = await peer.request("completion/complete", ask({ type: "ref/prompt", name: "bare" }, "x", ""));
    assert.deepEqual(none.result.completion, { values: [], total: 0, hasMore: false });
    assert.equal((await peer.request("completion/complete", ask({ type: "ref/prompt", name: "nope" }, "x", ""))).error?.code, -32602);
    assert.equal((await peer.request("completion/complete", ask({ type: "ref/resource", uri: "nope://{x}" }, "x", ""))).error?.code, -32602);
    assert.equal((await peer.request("completion/complete", ask({ type: "ref/other" }, "x", ""))).error?.code, -32602);
    await server.close();
  });

  it("completer lookups are on own keys only: an argument named constructor or toString gets the empty completion", T, async () => {
    const server = completingServer();
    const peer = await Peer.connect(server, "test");
    const refs = [
      { type: "ref/prompt", name: "trip" },
      { type: "ref/resource", uri: "numbers://{n}" },
    ];
    for (const ref of refs) {
      for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
        const answer = await peer.request("completion/complete", ask(ref, name, ""));
        assert.deepEqual(answer.result?.completion, { values: [], total: 0, hasMore: false }, `${ref.type} ${name}: ${JSON.stringify(answer.error)}`);
      }
    }
    await server.close();
  });

  it("without any completer the server neither answers completion/complete nor advertises completions", T, async () => {
    const server = createServer({ name: "complete", version: "1" });
    server.addPrompt({ name: "p" }, () => ({ messages: [] }));
    const peer = await Peer.connect(server, "test");
    assert.deepEqual((await peer.request("server/discover")).result.capabilities, { prompts: {}, logging: {} });
    assert.equal((await peer.request("completion/complete", ask({ type: "ref/prompt", name: "p" }, "x", ""))).error?.code, -32601);
    await server.close();
  });
});

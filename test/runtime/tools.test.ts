import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ajvSchemaValidator, createServer, ToolError, ToolOutputError, type RuntimeEvent } from "../../packages/runtime/src/index.js";
import { Peer } from "../support/runtime-peer.js";

const T = { timeout: 20_000 };

function failingTools(events: RuntimeEvent[]) {
  const server = createServer({
    name: "t",
    version: "1",
    validator: ajvSchemaValidator(new Ajv2020({ strict: false })),
    onEvent: (event) => events.push(event),
  });
  server.addTool({ name: "explode", inputSchema: { type: "object" } }, () => {
    throw new Error("the fuse was lit");
  });
  server.addTool({ name: "refuse", inputSchema: { type: "object" } }, () => {
    throw new ToolError("no station named Atlantis", { cause: new Error("lookup in stations.db") });
  });
  server.addTool(
    { name: "misshapen", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } },
    () => ({ content: [], structuredContent: { n: "one" as unknown as number } }),
  );
  return server;
}

describe("tool failures on the server's log", () => {
  it("a tool that throws answers a generic isError result, and its error goes to onEvent with the tool's name", T, async () => {
    const events: RuntimeEvent[] = [];
    const server = failingTools(events);
    const peer = await Peer.connect(server, "test");
    const answer = await peer.request("tools/call", { name: "explode" });
    // A tool's execution error is a result, not a JSON-RPC error; its message may hold what a client must not see.
    assert.equal(answer.error, undefined);
    const { content, isError } = answer.result as { content?: unknown; isError?: boolean };
    assert.deepEqual({ content, isError }, { content: [{ type: "text", text: "Tool explode failed; the server's log says why" }], isError: true });
    const reported = events.filter((event) => event.type === "handler-error");
    assert.equal(reported.length, 1);
    assert.equal(reported[0]!.callback, "tools/call");
    assert.equal(reported[0]!.tool, "explode");
    assert.equal((reported[0]!.error as Error).message, "the fuse was lit");
    await server.close();
  });

  it("a tool that throws a ToolError answers its message as the isError result, and nothing is reported", T, async () => {
    const events: RuntimeEvent[] = [];
    const server = failingTools(events);
    const peer = await Peer.connect(server, "test");
    const answer = await peer.request("tools/call", { name: "refuse" });
    const { content, isError } = answer.result as { content?: unknown; isError?: boolean };
    assert.deepEqual({ content, isError }, { content: [{ type: "text", text: "no station named Atlantis" }], isError: true });
    assert.deepEqual(
      events.filter((event) => event.type === "handler-error"),
      [],
    );
    await server.close();
  });

  it("a result that breaks outputSchema is reported once, naming the tool, its cause where the tool was added", T, async () => {
    const events: RuntimeEvent[] = [];
    const server = failingTools(events);
    const peer = await Peer.connect(server, "test");
    const answer = await peer.request("tools/call", { name: "misshapen" });
    assert.equal(answer.error?.code, -32603);
    assert.equal(answer.error?.message, "Internal error while handling tools/call");
    const reported = events.filter((event) => event.type === "handler-error");
    assert.equal(reported.length, 1);
    assert.equal(reported[0]!.tool, "misshapen");
    const error = reported[0]!.error;
    assert.ok(error instanceof ToolOutputError);
    assert.ok(error.cause instanceof Error);
    assert.match(error.cause.stack ?? "", /tools\.test\.ts:\d+:\d+/, "the cause's stack passes through the addTool call");
    await server.close();
  });
});

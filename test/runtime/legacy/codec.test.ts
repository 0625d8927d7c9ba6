/**
 * What a session at each initialize-era revision is sent: the newer revision's answers,
 * projected onto that revision's own shapes (generated from its schema), through a real
 * server and a real legacy peer.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer } from "../../../packages/runtime/src/index.js";
import { LEGACY_CODECS } from "../../../packages/runtime/src/legacy/translate.js";
import { LegacyPeer } from "../../support/legacy-peer.js";

const CLIENT = { capabilities: { elicitation: {}, sampling: {} }, clientInfo: { name: "codec-test", version: "1" } };

function codecOf(version: string) {
  const codec = LEGACY_CODECS.find((entry) => entry.version === version);
  assert.ok(codec, `no codec for ${version}`);
  return codec;
}

/** A server whose tool answers with what only newer revisions define: structured content, a resource link, audio. */
function richServer() {
  const server = createServer({ name: "rich", version: "1", title: "Rich server", instructions: "be kind" });
  server.addTool(
    {
      name: "report",
      title: "Report",
      description: "answers with every kind of content",
      inputSchema: { type: "object", properties: {} },
      outputSchema: { type: "object", properties: { count: { type: "number" } } },
      annotations: { readOnlyHint: true },
    },
    () => ({
      content: [
        { type: "text", text: "one" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource_link", uri: "app://reports/1", name: "report 1" },
      ],
      structuredContent: { count: 1 },
    }),
  );
  server.setRequestHandler("completion/complete", () => ({ completion: { values: [] } }));
  return server;
}

async function sessionAt(version: string) {
  const server = richServer();
  const peer = await LegacyPeer.open(server);
  const { result } = await peer.call("initialize", { protocolVersion: version, ...CLIENT });
  return { server, peer, initialize: result };
}

describe("a session at an initialize-era revision gets only what that revision defines", () => {
  it("2024-11-05: no completions capability, no title in server info; tools without title, annotations or output schema; audio and links as text, no structured content", async () => {
    const { server, peer, initialize } = await sessionAt("2024-11-05");
    assert.equal(initialize.protocolVersion, "2024-11-05");
    assert.equal("completions" in initialize.capabilities, false);
    assert.deepEqual(Object.keys(initialize.serverInfo).sort(), ["name", "version"]);
    assert.equal(initialize.instructions, "be kind");
    const { result: list } = await peer.call("tools/list", {});
    assert.deepEqual(Object.keys(list.tools[0]).sort(), ["description", "inputSchema", "name"]);
    const { result: call } = await peer.call("tools/call", { name: "report", arguments: {} });
    assert.deepEqual(call.content, [
      { type: "text", text: "one" },
      { type: "text", text: "[audio content (audio/wav), which this client's protocol revision cannot show]" },
      { type: "text", text: 'Resource "report 1": app://reports/1' },
    ]);
    assert.equal("structuredContent" in call, false);
    await server.close();
  });

  it("2025-03-26: audio passes, a resource link is text, annotations are kept and titles are not", async () => {
    const { server, peer } = await sessionAt("2025-03-26");
    const { result: list } = await peer.call("tools/list", {});
    assert.deepEqual(Object.keys(list.tools[0]).sort(), ["annotations", "description", "inputSchema", "name"]);
    const { result: call } = await peer.call("tools/call", { name: "report", arguments: {} });
    assert.deepEqual(
      call.content.map((block: { type: string }) => block.type),
      ["text", "audio", "text"],
    );
    await server.close();
  });

  it("2025-06-18: resource links, titles, output schemas and structured content pass", async () => {
    const { server, peer, initialize } = await sessionAt("2025-06-18");
    assert.deepEqual(Object.keys(initialize.serverInfo).sort(), ["name", "title", "version"]);
    const { result: list } = await peer.call("tools/list", {});
    assert.ok(list.tools[0].title && list.tools[0].outputSchema);
    const { result: call } = await peer.call("tools/call", { name: "report", arguments: {} });
    assert.deepEqual(
      call.content.map((block: { type: string }) => block.type),
      ["text", "audio", "resource_link"],
    );
    assert.deepEqual(call.structuredContent, { count: 1 });
    await server.close();
  });
});

describe("the codec of each revision", () => {
  it("a tool's JSON Schemas are the application's data: every revision keeps their $defs and additionalProperties", () => {
    const inputSchema = { type: "object", properties: { a: { $ref: "#/$defs/A" } }, $defs: { A: { type: "string" } }, additionalProperties: false };
    for (const codec of LEGACY_CODECS) {
      const { tools } = codec.result("tools/list", { tools: [{ name: "t", inputSchema }] }) as { tools: Array<{ inputSchema: unknown }> };
      assert.deepEqual(tools[0]!.inputSchema, inputSchema, codec.version);
    }
  });

  it("a server request goes out as the revision has it: a form-mode elicitation at 2025-06-18 without its mode", () => {
    const form = { mode: "form", message: "name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } };
    assert.deepEqual(codecOf("2025-06-18").requestParams("elicitation/create", form), { message: "name?", requestedSchema: form.requestedSchema });
    assert.equal(codecOf("2025-11-25").requestParams("elicitation/create", form), form);
  });

  it("at the newest legacy revision the common answers pass as they are: the same object, nothing copied", () => {
    const codec = codecOf("2025-11-25");
    const result = { content: [{ type: "text", text: "x" }], structuredContent: { a: 1 } };
    assert.equal(codec.result("tools/call", result), result);
    const list = { tools: [{ name: "t", title: "T", inputSchema: { type: "object" }, icons: [] }] };
    assert.equal(codec.result("tools/list", list), list);
  });

  it("whether an answer is walked is decided per method from the shapes: not at all at 2025-11-25, where a key neither schema defines stays", () => {
    const result = { content: [{ type: "text", text: "x" }], unknownToBoth: true };
    assert.equal(codecOf("2025-11-25").result("tools/call", result), result);
    assert.deepEqual(codecOf("2025-06-18").result("tools/call", result), { content: [{ type: "text", text: "x" }] });
  });

  it("a request the revision has no method for is not its client's to send", () => {
    assert.equal(codecOf("2024-11-05").defines("tools/call"), true);
    assert.equal(codecOf("2024-11-05").defines("elicitation/create"), false);
    assert.equal(codecOf("2025-06-18").defines("tasks/get"), false);
  });

  it("a server request the revision cannot carry is refused by name; a form-mode elicitation at 2025-06-18 loses nothing", () => {
    const form = { mode: "form", message: "name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } };
    assert.match(codecOf("2025-03-26").requestRefusal("elicitation/create", form) ?? "", /^protocol revision 2025-03-26 has no elicitation\/create request$/);
    assert.equal(codecOf("2025-06-18").requestRefusal("elicitation/create", form), undefined);
    const url = { mode: "url", message: "sign in", url: "https://example.test/", elicitationId: "e1" };
    assert.match(codecOf("2025-06-18").requestRefusal("elicitation/create", url) ?? "", /has no "url", "elicitationId"/);
    const sampling = { messages: [], maxTokens: 10, tools: [{ name: "t", inputSchema: { type: "object" } }] };
    assert.match(codecOf("2025-06-18").requestRefusal("sampling/createMessage", sampling) ?? "", /sampling\/createMessage has no "tools"/);
    assert.equal(codecOf("2025-11-25").requestRefusal("sampling/createMessage", sampling), undefined);
  });

  it("a notification the revision lacks is not sent; a known one carries only what the revision defines", () => {
    const progress = { jsonrpc: "2.0" as const, method: "notifications/progress", params: { progressToken: 1, progress: 1, message: "half" } };
    assert.deepEqual(codecOf("2024-11-05").notification(progress)?.params, { progressToken: 1, progress: 1 });
    assert.equal(codecOf("2025-03-26").notification(progress), progress);
    const complete = { jsonrpc: "2.0" as const, method: "notifications/elicitation/complete", params: { elicitationId: "e1" } };
    assert.equal(codecOf("2025-06-18").notification(complete), undefined);
  });

  it("a request's own notifications (progress) reach a session trimmed to its revision, like the session's", async () => {
    for (const [version, keys] of [
      ["2024-11-05", ["progress", "progressToken", "total"]],
      ["2025-03-26", ["message", "progress", "progressToken", "total"]],
    ] as const) {
      const server = createServer({ name: "progress", version: "1" });
      server.addTool({ name: "work", inputSchema: { type: "object" } }, (_args, request) => {
        request.sendProgress({ progress: 1, total: 2, message: "half way" });
        return { content: [{ type: "text", text: "done" }] };
      });
      const peer = await LegacyPeer.open(server);
      await peer.call("initialize", { protocolVersion: version, ...CLIENT });
      await peer.call("tools/call", { name: "work", arguments: {}, _meta: { progressToken: "p1" } });
      const progress = await peer.waitFor((m) => m.method === "notifications/progress", `progress at ${version}`);
      assert.deepEqual(Object.keys(progress.params).sort(), keys, version);
      await server.close();
    }
  });
});

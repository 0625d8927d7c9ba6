/**
 * The official MCP client (@modelcontextprotocol/client v2) against typed primitives served
 * over Streamable HTTP on 127.0.0.1: it lists (page by page) and reads resources, reads a
 * templated one, gets a prompt, completes an argument, and answers a tool's question.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ajvSchemaValidator, createServer, inputRequest } from "../../../packages/runtime/src/index.js";
import { serveHttp } from "../../../packages/runtime/src/transports/http-server.js";

function appServer() {
  const server = createServer({
    name: "app",
    version: "1.0.0",
    validator: ajvSchemaValidator(new Ajv2020({ strict: false })),
    lists: { resources: { pageSize: 1 } },
  });
  server.addResource({ uri: "notes://a", name: "a", mimeType: "text/plain" }, () => "note a");
  server.addResource({ uri: "notes://b", name: "b", mimeType: "text/plain" }, () => "note b");
  server.addResourceTemplate({ uriTemplate: "notes://by-tag/{tag}", name: "by-tag" }, (_uri, { tag }) => `notes tagged ${tag}`, {
    complete: { tag: (value) => ["work", "home"].filter((tag) => tag.startsWith(value)) },
  });
  server.addPrompt(
    { name: "summarise", arguments: [{ name: "topic", required: true }] },
    ({ topic }) => ({ messages: [{ role: "user", content: { type: "text", text: `Summarise ${topic}` } }] }),
    { complete: { topic: (value) => ["travel", "tax"].filter((topic) => topic.startsWith(value)) } },
  );
  server.addTool({ name: "ask_name", inputSchema: { type: "object" } }, (_args, _context, input) => {
    const given = input.response("who", "elicitation/create");
    if (given === undefined) {
      return input.ask(
        { who: inputRequest.elicit({ mode: "form", message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }) },
        "asked",
      );
    }
    return { content: [{ type: "text", text: `Hello, ${String(given.content?.name)} (${String(input.state)})` }] };
  });
  return server;
}

describe("the official client against the typed primitives over Streamable HTTP", () => {
  it("lists and reads resources, gets a prompt, completes arguments and answers a tool's question", { timeout: 60_000 }, async () => {
    const handle = await serveHttp(appServer(), { host: "127.0.0.1", port: 0 });
    const client = new Client(
      { name: "primitives-test", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { name: "Ada" } }));
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      const discovered = await client.discover();
      assert.deepEqual(Object.keys(discovered.capabilities).sort(), ["completions", "logging", "prompts", "resources", "tools"]);

      // Page size 1: the client walks both pages through nextCursor.
      const listed = await client.listResources();
      assert.deepEqual(
        listed.resources.map((r) => r.uri),
        ["notes://a", "notes://b"],
      );
      assert.deepEqual(
        (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
        ["notes://by-tag/{tag}"],
      );
      const read = await client.readResource({ uri: "notes://b" });
      assert.deepEqual(read.contents, [{ uri: "notes://b", mimeType: "text/plain", text: "note b" }]);
      assert.equal(((await client.readResource({ uri: "notes://by-tag/work" })).contents[0] as { text: string }).text, "notes tagged work");

      const prompt = await client.getPrompt({ name: "summarise", arguments: { topic: "tax" } });
      assert.deepEqual(prompt.messages, [{ role: "user", content: { type: "text", text: "Summarise tax" } }]);
      const topics = await client.complete({ ref: { type: "ref/prompt", name: "summarise" }, argument: { name: "topic", value: "t" } });
      assert.deepEqual(topics.completion.values, ["travel", "tax"]);
      const tags = await client.complete({ ref: { type: "ref/resource", uri: "notes://by-tag/{tag}" }, argument: { name: "tag", value: "w" } });
      assert.deepEqual(tags.completion.values, ["work"]);

      const answered = await client.callTool({ name: "ask_name", arguments: {} });
      assert.equal((answered.content as Array<{ text: string }>)[0]!.text, "Hello, Ada (asked)");
    } finally {
      await client.close();
      await handle.close();
    }
  });
});

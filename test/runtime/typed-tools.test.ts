/**
 * Tools typed from one schema: a zod 4 or valibot schema (a Standard Schema, checked through
 * `~standard`, listed as JSON Schema) or a JSON Schema literal (its type inferred). The
 * official 2.x client, with its default options, lists and calls them over Streamable HTTP.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Ajv2020 } from "ajv/dist/2020.js";
import * as v from "valibot";
import { z } from "zod";
import { ajvSchemaValidator, createServer, ToolOutputError, type JsonSchemaConverter, type RuntimeEvent } from "../../packages/runtime/src/index.js";
import { serveHttp } from "../../packages/runtime/src/transports/http-server.js";
import { Peer, REQUEST_META } from "../support/runtime-peer.js";

const T = { timeout: 30_000 };

/**
 * valibot does not convert itself to JSON Schema (its converter is a separate package), so
 * this stands in for that converter through the `toJsonSchema` option, reading valibot's own
 * schema objects for the few kinds these tests use.
 */
const valibotToJson: JsonSchemaConverter = (schema) => describeValibot(schema);
function describeValibot(schema: unknown): { [key: string]: unknown } {
  const node = schema as { type: string; entries?: Record<string, unknown>; wrapped?: unknown };
  if (node.type === "object") {
    const entries = Object.entries(node.entries ?? {});
    return {
      type: "object",
      properties: Object.fromEntries(entries.map(([key, entry]) => [key, describeValibot(entry)])),
      required: entries.filter(([, entry]) => (entry as { type: string }).type !== "optional").map(([key]) => key),
    };
  }
  if (node.type === "optional") return describeValibot(node.wrapped);
  return { type: node.type };
}

function typedServer(events: RuntimeEvent[] = []) {
  const server = createServer({ name: "typed", version: "1", toJsonSchema: valibotToJson, onEvent: (event) => events.push(event) });
  server.addTool(
    {
      name: "zod_weather",
      inputSchema: z.object({ city: z.string().min(1), days: z.number().int().default(1) }),
      outputSchema: z.object({ city: z.string(), celsius: z.number() }),
    },
    ({ city, days }) => ({ content: [{ type: "text", text: `${city} ${days}` }], structuredContent: { city: city.toUpperCase(), celsius: 20 + days } }),
  );
  server.addTool({ name: "valibot_echo", inputSchema: v.object({ word: v.string(), times: v.optional(v.number()) }) }, ({ word, times }) => ({
    content: [{ type: "text", text: word.repeat(times ?? 1) }],
  }));
  server.addTool({ name: "zod_liar", inputSchema: z.object({}), outputSchema: z.object({ celsius: z.number() }) }, () => ({
    content: [],
    // Typed as the schema wants, but the value breaks it at run time (NaN is not a JSON number to zod either).
    structuredContent: { celsius: Number.NaN },
  }));
  return server;
}

describe("tools typed from one schema", () => {
  it(
    "a zod tool is listed as the JSON Schema zod converts it to, gets its checked output (defaults applied) and answers checked structured content",
    T,
    async () => {
      const peer = await Peer.connect(typedServer(), "test");
      const { tools } = (await peer.request("tools/list", {})).result;
      const weather = tools.find((tool: { name: string }) => tool.name === "zod_weather");
      assert.equal(weather.inputSchema.type, "object");
      assert.deepEqual(weather.inputSchema.required, ["city"]);
      assert.deepEqual(weather.outputSchema.required, ["city", "celsius"]);
      const called = (await peer.request("tools/call", { name: "zod_weather", arguments: { city: "Oslo" } })).result;
      assert.deepEqual(called.structuredContent, { city: "OSLO", celsius: 21 });
      assert.equal(called.content[0].text, "Oslo 1");
    },
  );

  it("arguments a Standard Schema refuses get an isError result naming the path, and the tool never runs", T, async () => {
    const peer = await Peer.connect(typedServer(), "test");
    const zodBad = (await peer.request("tools/call", { name: "zod_weather", arguments: { city: "" } })).result;
    assert.equal(zodBad.isError, true);
    assert.match(zodBad.content[0].text, /^Invalid arguments for tool zod_weather: \/city /);
    const valibotBad = (await peer.request("tools/call", { name: "valibot_echo", arguments: { word: 3 } })).result;
    assert.equal(valibotBad.isError, true);
    assert.match(valibotBad.content[0].text, /^Invalid arguments for tool valibot_echo: \/word /);
  });

  it("a valibot tool is validated through ~standard and listed through the toJsonSchema option", T, async () => {
    const peer = await Peer.connect(typedServer(), "test");
    const { tools } = (await peer.request("tools/list", {})).result;
    const echo = tools.find((tool: { name: string }) => tool.name === "valibot_echo");
    assert.deepEqual(echo.inputSchema, { type: "object", properties: { word: { type: "string" }, times: { type: "number" } }, required: ["word"] });
    const called = (await peer.request("tools/call", { name: "valibot_echo", arguments: { word: "ab", times: 2 } })).result;
    assert.equal(called.content[0].text, "abab");
  });

  it("a Standard Schema whose numbers take Infinity (valibot's) still gets no non-finite number: 1e309 on the wire is refused as a violation", T, async () => {
    const peer = await Peer.connect(typedServer(), "test");
    const meta = JSON.stringify(REQUEST_META);
    // The test transport sends this text as it is, so the server's own parser reads 1e309 as Infinity.
    const wire = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"valibot_echo","arguments":{"word":"ab","times":1e309},"_meta":${meta}}}`;
    await peer.transport.sendMessage({ jsonrpc: "2.0", id: 7, method: "tools/call" }, wire);
    const { result } = await peer.response(7);
    assert.equal(result.isError, true);
    assert.equal(result.content[0].text, "Invalid arguments for tool valibot_echo: /times must be a finite number");
  });

  it("structured content the output Standard Schema refuses is -32603 to the client and a ToolOutputError through onEvent", T, async () => {
    const events: RuntimeEvent[] = [];
    const peer = await Peer.connect(typedServer(events), "test");
    const response = await peer.request("tools/call", { name: "zod_liar", arguments: {} });
    assert.equal(response.error?.code, -32603);
    const reported = events.find((event) => event.type === "handler-error");
    assert.ok(reported !== undefined && "error" in reported && reported.error instanceof ToolOutputError);
    assert.match(reported.error.message, /\/celsius /);
  });

  it("a Standard Schema that cannot be listed fails addTool with one line naming the fix", () => {
    const server = createServer({ name: "typed", version: "1" });
    assert.throws(
      () => server.addTool({ name: "bare_valibot", inputSchema: v.object({ word: v.string() }) }, () => ({ content: [] })),
      /^TypeError: addTool bare_valibot: its inputSchema is a valibot schema that does not convert itself to JSON Schema; pass createServer\(\{ toJsonSchema \}\)/,
    );
    assert.throws(
      () => server.addTool({ name: "not_object", inputSchema: z.string() }, () => ({ content: [] })),
      /^TypeError: addTool not_object: its inputSchema must describe an object/,
    );
  });

  it("a JSON Schema literal types its handler and is checked by the server's validator", T, async () => {
    const server = createServer({ name: "typed", version: "1", validator: ajvSchemaValidator(new Ajv2020({ strict: false })) });
    server.addTool(
      {
        name: "json_len",
        inputSchema: { type: "object", properties: { text: { type: "string" }, mode: { enum: ["chars", "words"] } }, required: ["text"] },
        outputSchema: { type: "object", properties: { length: { type: "integer" } }, required: ["length"] },
      },
      ({ text, mode }) => {
        const length = mode === "words" ? text.split(" ").length : text.length;
        return { content: [{ type: "text", text: String(length) }], structuredContent: { length } };
      },
    );
    const peer = await Peer.connect(server, "test");
    assert.deepEqual((await peer.request("tools/call", { name: "json_len", arguments: { text: "a b c", mode: "words" } })).result.structuredContent, {
      length: 3,
    });
    assert.equal((await peer.request("tools/call", { name: "json_len", arguments: { mode: "words" } })).result.isError, true);
  });

  it("a prompt's arguments as a zod schema are listed from it, checked by it, and get receives its output", T, async () => {
    const server = createServer({ name: "typed", version: "1" });
    server.addPrompt(
      { name: "report", arguments: z.object({ place: z.string().min(2).describe("where"), style: z.enum(["brief", "long"]).optional() }) },
      ({ place, style }) => ({ messages: [{ role: "user", content: { type: "text", text: `${place.toUpperCase()} ${style ?? "brief"}` } }] }),
    );
    const peer = await Peer.connect(server, "test");
    const { prompts } = (await peer.request("prompts/list", {})).result;
    assert.deepEqual(prompts[0].arguments, [{ name: "place", description: "where", required: true }, { name: "style" }]);
    const got = (await peer.request("prompts/get", { name: "report", arguments: { place: "Oslo", style: "long" } })).result;
    assert.equal(got.messages[0].content.text, "OSLO long");
    const refused = await peer.request("prompts/get", { name: "report", arguments: { place: "Oslo", style: "epic" } });
    assert.equal(refused.error?.code, -32602);
    assert.match(refused.error.message, /^Prompt report: invalid arguments: \/style /);
  });

  it("a resource template's variables checked and coerced by a valibot schema reach the reader as its output", T, async () => {
    const server = createServer({ name: "typed", version: "1" });
    server.addResourceTemplate(
      { uriTemplate: "orders://{id}", name: "order", variables: v.object({ id: v.pipe(v.string(), v.digits(), v.transform(Number)) }) },
      (_uri, { id }) => JSON.stringify({ next: id + 1 }),
    );
    const peer = await Peer.connect(server, "test");
    const read = (await peer.request("resources/read", { uri: "orders://41" })).result;
    assert.equal(read.contents[0].text, '{"next":42}');
    const { resourceTemplates } = (await peer.request("resources/templates/list", {})).result;
    assert.equal("variables" in resourceTemplates[0], false, "the schema is not listed");
    const refused = await peer.request("resources/read", { uri: "orders://abc" });
    assert.equal(refused.error?.code, -32602);
    assert.match(refused.error.message, /^Resource orders:\/\/abc: invalid template variables: \/id /);
  });

  it("the official 2.x client (default options) lists the zod tool's converted schemas and accepts its checked structured content", T, async () => {
    const handle = await serveHttp(typedServer(), { host: "127.0.0.1", port: 0 });
    const client = new Client({ name: "typed-tools-test", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      const { tools } = await client.listTools();
      assert.deepEqual(tools.find((tool) => tool.name === "zod_weather")?.inputSchema.required, ["city"]);
      const result = await client.callTool({ name: "zod_weather", arguments: { city: "Bergen", days: 2 } });
      assert.deepEqual(result.structuredContent, { city: "BERGEN", celsius: 22 });
    } finally {
      await client.close();
      await handle.close();
    }
  });
});

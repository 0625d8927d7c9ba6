/**
 * The content the conformance scenarios of the 2026-07-28 requirement set read: tools
 * returning each content type, static and templated resources, prompts, and completion,
 * all registered through the runtime's public API (addTool, addPrompt, addResource,
 * addResourceTemplate). Each answer is what the scenario's own description asks for.
 */
import { deflateSync } from "node:zlib";
import { ToolError, type CacheHints, type Server, type ToolRunner } from "../../../../packages/runtime/src/index.js";
import type { Tool } from "../../../../generated/index.js";

export const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const object: Tool["inputSchema"] = { type: "object" };

/** A 1x1 red PNG and an empty WAV, built here. */
const PNG_1X1 = png1x1();
const WAV_EMPTY = Buffer.concat([
  Buffer.from("RIFF"),
  u32(36),
  Buffer.from("WAVEfmt "),
  u32(16),
  u16(1),
  u16(1),
  u32(8000),
  u32(16000),
  u16(2),
  u16(16),
  Buffer.from("data"),
  u32(0),
]).toString("base64");

function png1x1(): string {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    return Buffer.concat([u32be(data.length), body, u32be(crc32(body))]);
  };
  const header = Buffer.concat([u32be(1), u32be(1), Buffer.from([8, 2, 0, 0, 0])]); // 8-bit RGB
  const pixels = deflateSync(Buffer.from([0, 255, 0, 0])); // filter byte, then one red pixel
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", header), chunk("IDAT", pixels), chunk("IEND", Buffer.alloc(0))]).toString(
    "base64",
  );
}

function crc32(data: Buffer): number {
  let crc = ~0;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function u32be(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
}

function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
}
function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16LE(value);
  return buffer;
}

/** The focal schema of the JSON Schema 2020-12 scenarios: it must reach the client untouched (SEP-1613, SEP-2106). */
const SCHEMA_2020_12: Tool["inputSchema"] = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { $anchor: "addressDef", type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

function addTools(server: Server): void {
  const tool = (name: string, description: string, run: ToolRunner, inputSchema = object) =>
    server.addTool({ name, description, inputSchema }, run);
  tool("test_simple_text", "Returns one text block", () => text("This is a simple text response for testing."));
  tool("test_image_content", "Returns an image", () => ({ content: [{ type: "image", data: PNG_1X1, mimeType: "image/png" }] }));
  tool("test_audio_content", "Returns audio", () => ({ content: [{ type: "audio", data: WAV_EMPTY, mimeType: "audio/wav" }] }));
  tool("test_embedded_resource", "Returns an embedded resource", () => ({
    content: [{ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } }],
  }));
  tool("test_multiple_content_types", "Returns text, an image and a resource", () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: PNG_1X1, mimeType: "image/png" },
      {
        type: "resource",
        resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) },
      },
    ],
  }));
  tool("test_error_handling", "Always fails (reported as an isError result)", () => {
    throw new ToolError("This tool intentionally returns an error for testing");
  });
  // Its region and count travel as Mcp-Param-Region / Mcp-Param-Count headers on HTTP (SEP-2243).
  tool(
    "test_custom_headers",
    "Echoes parameters that clients mirror into headers",
    ({ region, count }) => text(`region=${String(region)} count=${String(count)}`),
    {
      type: "object",
      properties: { region: { type: "string", "x-mcp-header": "Region" }, count: { type: "integer", "x-mcp-header": "Count" }, note: { type: "string" } },
      required: ["region"],
    },
  );
  tool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", () => text("ok"), SCHEMA_2020_12);
}

function addPrompts(server: Server): void {
  const user = (value: string) => ({ role: "user" as const, content: { type: "text" as const, text: value } });
  server.addPrompt({ name: "test_simple_prompt", description: "A prompt without arguments" }, () => ({
    messages: [user("This is a simple prompt for testing.")],
  }));
  server.addPrompt(
    {
      name: "test_prompt_with_arguments",
      description: "A prompt with two arguments",
      arguments: [
        { name: "arg1", description: "First test argument", required: true },
        { name: "arg2", description: "Second test argument", required: true },
      ],
    },
    ({ arg1, arg2 }) => ({ messages: [user(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)] }),
    { complete: { arg1: (value) => ["paris", "park", "party"].filter((word) => word.startsWith(value)) } },
  );
  server.addPrompt(
    {
      name: "test_prompt_with_embedded_resource",
      description: "A prompt embedding a resource",
      arguments: [{ name: "resourceUri", description: "URI to embed", required: true }],
    },
    ({ resourceUri }) => ({
      messages: [
        { role: "user", content: { type: "resource", resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." } } },
        user("Please process the embedded resource above."),
      ],
    }),
  );
  server.addPrompt({ name: "test_prompt_with_image", description: "A prompt with an image" }, () => ({
    messages: [{ role: "user", content: { type: "image", data: PNG_1X1, mimeType: "image/png" } }, user("Please analyze the image above.")],
  }));
}

function addResources(server: Server): void {
  const cache: CacheHints = { ttlMs: 0, cacheScope: "public" };
  server.addResource(
    { uri: "test://static-text", name: "static-text", description: "A static text resource", mimeType: "text/plain" },
    () => "This is the content of the static text resource.",
    cache,
  );
  server.addResource(
    { uri: "test://static-binary", name: "static-binary", description: "A static binary resource", mimeType: "image/png" },
    () => Buffer.from(PNG_1X1, "base64"),
    cache,
  );
  server.addResourceTemplate(
    { uriTemplate: "test://template/{id}/data", name: "template-data", description: "Data for one id", mimeType: "application/json" },
    (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
    cache,
  );
}

export function addEverything(server: Server): void {
  addTools(server);
  addPrompts(server);
  addResources(server);
}

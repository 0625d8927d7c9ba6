/**
 * The content the conformance scenarios of the 2026-07-28 requirement set read: tools
 * returning each content type, static and templated resources, prompts, and completion.
 * Each answer is what the scenario's own description asks for.
 */
import { deflateSync } from "node:zlib";
import { McpError, type Server } from "../../../templates/runtime/index.js";
import { ERROR_CODES } from "../../../generated/v2607/capabilities.js";
import type { Catalog } from "./catalog.js";
import { text } from "./catalog.js";

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

const cache = { ttlMs: 0, cacheScope: "public" } as const;

function addTools(catalog: Catalog): void {
  catalog.tool("test_simple_text", "Returns one text block", () => text("This is a simple text response for testing."));
  catalog.tool("test_image_content", "Returns an image", () => ({ content: [{ type: "image", data: PNG_1X1, mimeType: "image/png" }] }));
  catalog.tool("test_audio_content", "Returns audio", () => ({ content: [{ type: "audio", data: WAV_EMPTY, mimeType: "audio/wav" }] }));
  catalog.tool("test_embedded_resource", "Returns an embedded resource", () => ({
    content: [{ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } }],
  }));
  catalog.tool("test_multiple_content_types", "Returns text, an image and a resource", () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: PNG_1X1, mimeType: "image/png" },
      {
        type: "resource",
        resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) },
      },
    ],
  }));
  catalog.tool("test_error_handling", "Always fails (reported as an isError result)", () => {
    throw new Error("This tool intentionally returns an error for testing");
  });
  // The runtime must hand a 2020-12 schema through untouched (SEP-1613, SEP-2106).
  catalog.tool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", () => text("ok"), {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    $defs: { contact: { $anchor: "contactDef", type: "object", properties: { kind: { type: "string" } } } },
    properties: { via: { type: "string", enum: ["mail", "phone"] }, mail: { type: "string" }, phone: { type: "string" }, contact: { $ref: "#/$defs/contact" } },
    allOf: [{ anyOf: [{ required: ["mail"] }, { required: ["phone"] }] }],
    if: { properties: { via: { const: "phone" } }, required: ["via"] },
    then: { required: ["phone"] },
    else: { required: ["mail"] },
    additionalProperties: false,
  } as Parameters<Catalog["tool"]>[3]);
}

function addPrompts(catalog: Catalog): void {
  const user = (value: string) => ({ role: "user" as const, content: { type: "text" as const, text: value } });
  catalog.prompt({ name: "test_simple_prompt", description: "A prompt without arguments" }, () => ({
    messages: [user("This is a simple prompt for testing.")],
  }));
  catalog.prompt(
    {
      name: "test_prompt_with_arguments",
      description: "A prompt with two arguments",
      arguments: [
        { name: "arg1", description: "First test argument", required: true },
        { name: "arg2", description: "Second test argument", required: true },
      ],
    },
    (params) => ({ messages: [user(`Prompt with arguments: arg1='${params.arguments?.arg1}', arg2='${params.arguments?.arg2}'`)] }),
  );
  catalog.prompt(
    {
      name: "test_prompt_with_embedded_resource",
      description: "A prompt embedding a resource",
      arguments: [{ name: "resourceUri", description: "URI to embed", required: true }],
    },
    (params) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "resource",
            resource: { uri: String(params.arguments?.resourceUri), mimeType: "text/plain", text: "Embedded resource content for testing." },
          },
        },
        user("Please process the embedded resource above."),
      ],
    }),
  );
  catalog.prompt({ name: "test_prompt_with_image", description: "A prompt with an image" }, () => ({
    messages: [{ role: "user", content: { type: "image", data: PNG_1X1, mimeType: "image/png" } }, user("Please analyze the image above.")],
  }));
}

const STATIC = new Map([
  ["test://static-text", { mimeType: "text/plain", text: "This is the content of the static text resource." }],
  ["test://static-binary", { mimeType: "image/png", blob: PNG_1X1 }],
]);
const TEMPLATE = /^test:\/\/template\/([^/]+)\/data$/;

function addResources(server: Server): void {
  server.setRequestHandler("resources/list", () => ({
    resources: [
      { uri: "test://static-text", name: "static-text", description: "A static text resource", mimeType: "text/plain" },
      { uri: "test://static-binary", name: "static-binary", description: "A static binary resource", mimeType: "image/png" },
    ],
    ...cache,
  }));
  server.setRequestHandler("resources/templates/list", () => ({
    resourceTemplates: [{ uriTemplate: "test://template/{id}/data", name: "template-data", description: "Data for one id", mimeType: "application/json" }],
    ...cache,
  }));
  server.setRequestHandler("resources/read", (params) => {
    const fixed = STATIC.get(params.uri);
    if (fixed !== undefined) return { contents: [{ uri: params.uri, ...fixed }], ...cache };
    const id = TEMPLATE.exec(params.uri)?.[1];
    if (id !== undefined) {
      const body = JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
      return { contents: [{ uri: params.uri, mimeType: "application/json", text: body }], ...cache };
    }
    throw new McpError(ERROR_CODES.InvalidParamsError, "Resource not found", { uri: params.uri });
  });
}

export function addEverything(catalog: Catalog, server: Server): void {
  addTools(catalog);
  addPrompts(catalog);
  addResources(server);
  server.setRequestHandler("completion/complete", (params) => {
    const known = ["paris", "park", "party"];
    const values = known.filter((value) => value.startsWith(params.argument.value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
}

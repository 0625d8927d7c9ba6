/**
 * The portable form of a tool's schemas: local references inlined, `$defs` dropped, a
 * recursive or oversized schema left as given; and a server made with `toolSchemas:
 * "portable"` listing it to the official client over Streamable HTTP on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ajvSchemaValidator, createServer } from "../../../packages/runtime/src/index.js";
import { serveHttp } from "../../../packages/runtime/src/transports/http-server.js";
import { MAX_INLINE_DEPTH, MAX_INLINED_NODES, portableSchema } from "../../../packages/runtime/src/schema-portability/inline.js";

const ORDER_INPUT = {
  type: "object",
  properties: {
    item: { $ref: "#/$defs/Item", description: "what to order" },
    spare: { $ref: "#/$defs/Item", minProperties: 1 },
    delivery: { anyOf: [{ type: "string", enum: ["pickup"] }, { $ref: "#/$defs/Address" }] },
  },
  required: ["item"],
  $defs: {
    Item: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
    Address: { type: "object", properties: { street: { type: "string" } } },
  },
} as const;

const ITEM = { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] };

test("local references are inlined and $defs dropped; annotations beside a $ref are merged, other keywords kept beside it in allOf", () => {
  assert.deepEqual(portableSchema(ORDER_INPUT), {
    type: "object",
    properties: {
      item: { ...ITEM, description: "what to order" },
      spare: { minProperties: 1, allOf: [ITEM] },
      delivery: {
        anyOf: [
          { type: "string", enum: ["pickup"] },
          { type: "object", properties: { street: { type: "string" } } },
        ],
      },
    },
    required: ["item"],
  });
  assert.ok(!JSON.stringify(portableSchema(ORDER_INPUT)).includes("$ref"));
});

test("a schema without references is returned as it is, and values that are not schemas are never read as references", () => {
  const plain = { type: "object", properties: { mode: { const: { $ref: "#/nowhere" } } } };
  assert.equal(portableSchema(plain), plain);
});

test("a property named like a keyword (default, enum, required) is a schema like any other: its $ref is inlined", () => {
  const schema = {
    type: "object",
    properties: { default: { $ref: "#/$defs/Item" }, enum: { $ref: "#/$defs/Item" }, required: { type: "array", items: { $ref: "#/$defs/Item" } } },
    $defs: { Item: ITEM },
  };
  assert.deepEqual(portableSchema(schema), { type: "object", properties: { default: ITEM, enum: ITEM, required: { type: "array", items: ITEM } } });
});

test("a recursive schema, a remote reference and an unresolved one are left as given", () => {
  const tree = { type: "object", properties: { children: { type: "array", items: { $ref: "#" } } } };
  assert.equal(portableSchema(tree), tree);
  const list = { $ref: "#/$defs/Node", $defs: { Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } } } } };
  assert.equal(portableSchema(list), list);
  const remote = { type: "object", properties: { a: { $ref: "https://example.com/a.json" } } };
  assert.equal(portableSchema(remote), remote);
  const missing = { type: "object", properties: { a: { $ref: "#/$defs/Missing" } } };
  assert.equal(portableSchema(missing), missing);
});

test(`references nested more than ${MAX_INLINE_DEPTH} deep, or an expansion over ${MAX_INLINED_NODES} subschemas, are left as given`, () => {
  const chain: Record<string, unknown> = { L0: { type: "string" } };
  for (let level = 1; level <= MAX_INLINE_DEPTH + 1; level++) chain[`L${level}`] = { type: "array", items: { $ref: `#/$defs/L${level - 1}` } };
  const deep = { type: "object", properties: { a: { $ref: `#/$defs/L${MAX_INLINE_DEPTH + 1}` } }, $defs: chain };
  assert.equal(portableSchema(deep), deep);
  const shallow = { type: "object", properties: { a: { $ref: `#/$defs/L${MAX_INLINE_DEPTH - 1}` } }, $defs: chain };
  assert.ok(!JSON.stringify(portableSchema(shallow)).includes("$ref"));

  // Each level uses the one below twice: 2^20 copies of the last.
  const doubling: Record<string, unknown> = { D0: { type: "string" } };
  for (let level = 1; level <= 20; level++)
    doubling[`D${level}`] = { type: "array", prefixItems: [{ $ref: `#/$defs/D${level - 1}` }, { $ref: `#/$defs/D${level - 1}` }] };
  const wide = { type: "object", properties: { a: { $ref: "#/$defs/D20" } }, $defs: doubling };
  assert.equal(portableSchema(wide), wide);
});

test(
  'with toolSchemas: "portable" the official client lists the tool\'s schemas with no $ref, and its arguments are still checked',
  { timeout: 60_000 },
  async () => {
    const server = createServer({ name: "shop", version: "1.0.0", validator: ajvSchemaValidator(new Ajv2020({ strict: false })), toolSchemas: "portable" });
    server.addTool(
      {
        name: "place_order",
        inputSchema: ORDER_INPUT,
        outputSchema: { $ref: "#/$defs/R", $defs: { R: { type: "object", properties: { id: { type: "string" } } } } },
      },
      () => ({
        content: [{ type: "text", text: "ordered" }],
        structuredContent: { id: "1" },
      }),
    );
    const handle = await serveHttp(server, { host: "127.0.0.1", port: 0 });
    const client = new Client({ name: "portable-test", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      const { tools } = await client.listTools();
      const listed = tools.find((tool) => tool.name === "place_order")!;
      assert.ok(!JSON.stringify(listed.inputSchema).includes("$ref"), JSON.stringify(listed.inputSchema));
      assert.ok(!JSON.stringify(listed.outputSchema).includes("$ref"), JSON.stringify(listed.outputSchema));
      assert.equal("$defs" in listed.inputSchema, false);
      assert.deepEqual((listed.inputSchema.properties as Record<string, unknown>)["item"], { ...ITEM, description: "what to order" });
      const refused = await client.callTool({ name: "place_order", arguments: { item: {} } });
      assert.equal(refused.isError, true);
      const placed = await client.callTool({ name: "place_order", arguments: { item: { sku: "A1" } } });
      assert.deepEqual(placed.structuredContent, { id: "1" });
    } finally {
      await client.close();
      await handle.close();
    }
  },
);

test("by default the schemas are listed as given, references and all", { timeout: 60_000 }, async () => {
  const server = createServer({ name: "shop", version: "1.0.0" });
  server.addTool({ name: "place_order", inputSchema: ORDER_INPUT }, () => ({ content: [] }));
  const handle = await serveHttp(server, { host: "127.0.0.1", port: 0 });
  const client = new Client({ name: "as-given-test", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    const { tools } = await client.listTools();
    assert.ok(JSON.stringify(tools[0]!.inputSchema).includes('"$ref":"#/$defs/Item"'));
  } finally {
    await client.close();
    await handle.close();
  }
});

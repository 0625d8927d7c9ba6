/**
 * The provider rules applied to tool schemas: each finding names the tool, the schema side,
 * the provider, the keyword and the JSON pointer of the place at fault.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { lintToolSchemas, MAX_LINT_DEPTH, type SchemaFinding } from "../../../packages/runtime/src/schema-portability/lint.js";
import { PROVIDER_RULES } from "../../../packages/runtime/src/schema-portability/provider-rules.js";

/** A tool as a zod or pydantic model often lists: a shared definition, and a union of two shapes. */
const ORDER = {
  name: "place_order",
  inputSchema: {
    type: "object",
    properties: {
      item: { $ref: "#/$defs/Item" },
      delivery: { oneOf: [{ type: "string", const: "pickup" }, { type: "object", properties: { address: { type: "string" } }, required: ["address"] }] },
    },
    required: ["item"],
    $defs: { Item: { type: "object", properties: { sku: { type: "string" }, note: { type: ["string", "null"] } }, required: ["sku"] } },
  },
};

const CLEAN = {
  name: "clean",
  inputSchema: { type: "object", properties: { text: { type: "string", enum: ["a", "b"] } }, required: ["text"] },
};

function where(findings: SchemaFinding[], provider: string): string[] {
  return findings
    .filter((finding) => finding.provider === provider && finding.tool === "place_order")
    .map((finding) => `${finding.tool} ${finding.side}${finding.pointer} ${finding.keyword}`)
    .sort();
}

test("a schema with $defs and a union: the report names the tool, the keyword, the pointer and the providers", () => {
  const findings = lintToolSchemas([ORDER, CLEAN]);
  assert.deepEqual(where(findings, "gemini"), [
    "place_order inputSchema/$defs $defs",
    "place_order inputSchema/$defs/Item/properties/note/type type",
    "place_order inputSchema/properties/delivery/oneOf oneOf",
    "place_order inputSchema/properties/delivery/oneOf/0/const const",
    "place_order inputSchema/properties/item/$ref $ref",
  ]);
  assert.deepEqual(where(findings, "openai-strict"), [
    "place_order inputSchema/$defs/Item/additionalProperties additionalProperties",
    "place_order inputSchema/$defs/Item/required required",
    "place_order inputSchema/additionalProperties additionalProperties",
    "place_order inputSchema/properties/delivery/oneOf oneOf",
    "place_order inputSchema/properties/delivery/oneOf/1/additionalProperties additionalProperties",
    "place_order inputSchema/required required",
  ]);
  assert.deepEqual(where(findings, "anthropic"), []);
  const ref = findings.find((finding) => finding.keyword === "$ref")!;
  assert.equal(ref.effect, "rejected");
  assert.match(ref.source, /^https:\/\/ai\.google\.dev\//);
  assert.equal(findings.find((finding) => finding.keyword === "oneOf" && finding.provider === "openai-strict")!.unconfirmed, true);
});

test("a plain object schema is inside Gemini's and Anthropic's subsets, on either side; OpenAI's strict mode wants it closed, which Gemini refuses", () => {
  const findings = lintToolSchemas([{ ...CLEAN, outputSchema: CLEAN.inputSchema }]);
  assert.deepEqual(
    findings.map((finding) => `${finding.provider} ${finding.side}${finding.pointer}`),
    ["openai-strict inputSchema/additionalProperties", "openai-strict outputSchema/additionalProperties"],
  );
  const closed = lintToolSchemas([{ name: "closed", inputSchema: { ...CLEAN.inputSchema, additionalProperties: false } }]);
  assert.deepEqual(
    closed.map((finding) => `${finding.provider} ${finding.pointer}`),
    ["gemini /additionalProperties"],
  );
});

test("an outputSchema is checked like an inputSchema, and a root that is not an object is named for Anthropic", () => {
  const findings = lintToolSchemas([{ name: "count", inputSchema: { type: "object" }, outputSchema: { type: "integer", enum: [1, 2] } }]);
  assert.deepEqual(
    findings.map((finding) => `${finding.provider} ${finding.side}${finding.pointer}`),
    ["openai-strict inputSchema/additionalProperties", "gemini outputSchema/enum", "anthropic outputSchema/type"],
  );
});

test("pointer tokens are escaped as RFC 6901 says: ~ as ~0 and / as ~1", () => {
  const findings = lintToolSchemas([{ name: "paths", inputSchema: { type: "object", properties: { "a/b~c": { const: 1 } } } }]);
  assert.ok(findings.some((finding) => finding.pointer === "/properties/a~1b~0c/const"));
});

test(`subschemas deeper than ${MAX_LINT_DEPTH} levels are not visited`, () => {
  let schema: Record<string, unknown> = { const: "deepest" };
  for (let level = 0; level < MAX_LINT_DEPTH + 5; level++) schema = { type: "array", items: schema };
  const findings = lintToolSchemas([{ name: "deep", inputSchema: { type: "object", properties: { list: schema } } }]);
  assert.deepEqual(findings.filter((finding) => finding.keyword === "const"), []);
});

test("every rule cites the documentation it comes from and says what the provider does", () => {
  for (const rule of PROVIDER_RULES) {
    assert.match(rule.source, /^https:\/\//);
    assert.ok(rule.says.length > 0);
  }
});

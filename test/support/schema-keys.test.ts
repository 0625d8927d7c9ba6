import assert from "node:assert/strict";
import { test } from "node:test";
import { revisionSchema, undeclaredKeys, type SchemaDocument } from "./schema-keys.js";

// A hand-made schema in both dialects' shapes: a result with a free-form `_meta`, a nested
// object reached through $ref, and content blocks told apart by their `type` constant.
const definitions = {
  Result: {
    type: "object",
    properties: {
      _meta: { type: "object", additionalProperties: {} },
      info: { $ref: "#/definitions/Info" },
      content: { type: "array", items: { anyOf: [{ $ref: "#/definitions/Text" }, { $ref: "#/definitions/Image" }] } },
      tagged: { allOf: [{ $ref: "#/definitions/Info" }, { properties: { tag: { type: "string" } } }] },
    },
  },
  Info: { type: "object", properties: { name: { type: "string" } } },
  Text: { type: "object", properties: { type: { const: "text" }, text: { type: "string" } } },
  Image: { type: "object", properties: { type: { const: "image" }, data: { type: "string" }, mimeType: { type: "string" } } },
};
const draft07: SchemaDocument = { definitions };
const draft202012: SchemaDocument = { $defs: JSON.parse(JSON.stringify(definitions).replaceAll("#/definitions/", "#/$defs/")) };

const conforming = {
  _meta: { anything: { goes: true } },
  info: { name: "x" },
  content: [
    { type: "text", text: "hi" },
    { type: "image", data: "AA==", mimeType: "image/png" },
  ],
  tagged: { name: "y", tag: "z" },
};

for (const [dialect, document] of [
  ["draft-07 definitions", draft07],
  ["2020-12 $defs", draft202012],
] as const) {
  test(`a value holding only declared keys has none undeclared (${dialect}); _meta's own keys are free-form`, () => {
    assert.deepEqual(undeclaredKeys(conforming, document, "Result"), []);
  });

  test(`every undeclared key is reported by its path, through $ref, items, anyOf by type constant and allOf (${dialect})`, () => {
    const extra = {
      ...conforming,
      resultType: "complete",
      info: { name: "x", title: "X" },
      // `data` is declared on Image, not Text: the block's type picks Text, so it is extra.
      content: [
        { type: "text", text: "hi", data: "AA==" },
        { type: "image", data: "AA==", mimeType: "image/png", annotations: {} },
      ],
      tagged: { name: "y", tag: "z", ttlMs: 5 },
    };
    assert.deepEqual(undeclaredKeys(extra, document, "Result").sort(), [
      "$.content[0].data",
      "$.content[1].annotations",
      "$.info.title",
      "$.resultType",
      "$.tagged.ttlMs",
    ]);
  });
}

test("an unknown definition name is an error, not an empty report", () => {
  assert.throws(() => undeclaredKeys({}, draft07, "NoSuchResult"), /defines no NoSuchResult/);
});

test("against the real 2024-11-05 schema, a 2025-11-25-shaped initialize result has its newer keys reported", () => {
  const result = {
    protocolVersion: "2024-11-05",
    capabilities: { tools: { listChanged: true }, completions: {}, experimental: { anything: {} } },
    serverInfo: { name: "app", version: "0.1.0", title: "App" },
  };
  assert.deepEqual(undeclaredKeys(result, revisionSchema("2024-11-05"), "InitializeResult").sort(), ["$.capabilities.completions", "$.serverInfo.title"]);
  assert.deepEqual(undeclaredKeys(result, revisionSchema("2025-11-25"), "InitializeResult"), []);
});

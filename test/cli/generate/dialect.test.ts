import assert from "node:assert/strict";
import { test } from "node:test";
import { toDefsForm } from "../../../cli/generate/dialect.js";
import type { LoadedSchema } from "../../../cli/generate/load.js";

function loaded(json: Record<string, unknown>): LoadedSchema {
  return { json, location: "schema.json", isUrl: false, sha256: "0".repeat(64) };
}

test("a draft-07 schema's definitions move to $defs and every reference into them follows", () => {
  const draft07 = loaded({
    $schema: "http://json-schema.org/draft-07/schema#",
    definitions: {
      Result: { type: "object", properties: { _meta: { type: "object" } } },
      ListResult: { allOf: [{ $ref: "#/definitions/Result" }], properties: { items: { type: "array", items: { $ref: "#/definitions/Result" } } } },
    },
  });
  const { json } = toDefsForm(draft07);
  assert.equal("definitions" in json, false);
  assert.deepEqual(json.$defs, {
    Result: { type: "object", properties: { _meta: { type: "object" } } },
    ListResult: { allOf: [{ $ref: "#/$defs/Result" }], properties: { items: { type: "array", items: { $ref: "#/$defs/Result" } } } },
  });
  assert.equal(json.$schema, "http://json-schema.org/draft-07/schema#");
});

test("a 2020-12 schema is handed on as it is, not copied", () => {
  const schema = loaded({ $defs: { A: { type: "string" } } });
  assert.equal(toDefsForm(schema), schema);
});

test("a schema with neither $defs nor definitions is one error naming both", () => {
  assert.throws(() => toDefsForm(loaded({ $schema: "x", properties: {} })), /schema\.json .*has neither "\$defs" nor "definitions"/);
});

test("a __proto__ key survives the rewrite as a key, for normalize to refuse by name", () => {
  const json = JSON.parse('{"definitions":{"A":{"properties":{"__proto__":{"type":"string"}}}}}');
  const { $defs } = toDefsForm(loaded(json)).json as { $defs: { A: { properties: object } } };
  assert.deepEqual(Object.keys($defs.A.properties), ["__proto__"]);
});

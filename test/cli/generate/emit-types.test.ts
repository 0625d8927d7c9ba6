import assert from "node:assert/strict";
import { test } from "node:test";
import { emitTypes } from "../../../cli/generate/emit-types.js";
import { buildIR } from "../../../cli/generate/ir.js";
import { loadSchema } from "../../../cli/generate/load.js";
import { normalizeSchema } from "../../../cli/generate/normalize.js";
import { schemaPath } from "../../support/schemas.js";

test("a $ref with sibling keywords names the definition instead of making a numbered copy", async () => {
  const loaded = await loadSchema(schemaPath("2026-07-28"));
  const ir = buildIR(normalizeSchema(loaded), { revision: "2026-07-28", sha256: loaded.sha256, pinned: true });
  const types = await emitTypes(ir);
  for (const { name } of ir.definitions) assert.doesNotMatch(types, new RegExp(`\\b${name}\\d+\\b`), `no numbered copy of ${name}`);
  assert.match(types, /\* Optional annotations for the client\.\s*\*\/\s*annotations\?: Annotations\n/, "the ref's own description stays on the property");
  assert.equal((types.match(/^export interface Annotations \{/gm) ?? []).length, 1);
});

test("types.ts declares every definition exactly once, in the IR's order, and nothing else", async () => {
  const loaded = await loadSchema(schemaPath("2026-07-28"));
  const ir = buildIR(normalizeSchema(loaded), { revision: "2026-07-28", sha256: loaded.sha256, pinned: true });
  const types = await emitTypes(ir);
  const declared = [...types.matchAll(/^export (?:type|interface) (\w+)/gm)].map((match) => match[1]);
  assert.deepEqual(
    declared,
    ir.definitions.map(({ name }) => name),
  );
});

test("a property schema with no type keyword takes any JSON value: unknown, not an object", async () => {
  const loaded = await loadSchema(schemaPath("2026-07-28"));
  const ir = buildIR(normalizeSchema(loaded), { revision: "2026-07-28", sha256: loaded.sha256, pinned: true });
  const types = await emitTypes(ir);
  const member = (declaration: string, property: string) =>
    new RegExp(`^export interface ${declaration} \\{[^]*?^\\s*${property}(\\?)?: ([^;\\n]+);?$`, "m").exec(types)?.[2]?.trim();
  // `data` of an error and of a log message, and a tool's structured content, are bare `{ description }` schemas.
  assert.equal(member("Error", "data"), "unknown");
  assert.equal(member("LoggingMessageNotificationParams", "data"), "unknown");
  assert.equal(member("CallToolResult", "structuredContent"), "unknown");
  // An open map (`additionalProperties: {}`) keeps its index signature.
  assert.match(types, /^export interface Result \{[^]*?\[k: string\]: unknown/m);
});

test("a title on an inline subschema becomes its doc comment, never a type of its own", async () => {
  const json = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $defs: {
      ClientRequest: { anyOf: [{ $ref: "#/$defs/PingRequest" }] },
      PingRequest: {
        type: "object",
        properties: { method: { type: "string", const: "ping" }, params: { $ref: "#/$defs/Thing", title: "Ref Title" } },
        required: ["method"],
      },
      EmptyResult: { type: "object" },
      Thing: {
        title: "Thing's own title",
        type: "object",
        properties: {
          part: { title: "Part Title", type: "object", properties: { title: { type: "string", title: "Named Title" } } },
          described: { title: "Dropped Title", description: "The description stays.", type: "string" },
          choice: {
            anyOf: [
              { title: "First Choice", type: "string" },
              { title: "Second Choice", type: "number" },
            ],
          },
          list: { type: "array", items: { title: "Item Title", type: "string" } },
          map: { type: "object", additionalProperties: { title: "Value Title", type: "boolean" } },
        },
      },
    },
  };
  const ir = buildIR(normalizeSchema({ json, location: "titles.json", isUrl: false, sha256: "0" }), { revision: "2026-09-01", sha256: "0", pinned: false });
  const types = await emitTypes(ir);
  const declared = [...types.matchAll(/^export (?:type|interface) (\w+)/gm)].map((match) => match[1]);
  assert.deepEqual([...declared].sort(), ["ClientRequest", "EmptyResult", "PingRequest", "Thing"]);
  // A union member's doc comment has nowhere to go in the library's output; the member stays.
  assert.match(types, /choice\?: \(string \| number\)/);
  for (const title of ["Ref Title", "Part Title", "Named Title", "Item Title", "Value Title"]) assert.match(types, new RegExp(`\\* .*${title}`), title);
  assert.doesNotMatch(types, /Dropped Title/);
  assert.match(types, /\* The description stays\.\s*\*\/\s*described\?: string/);
  assert.match(types, /title\?: string/, "a property named title is a property, not a keyword");
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { withMcpName } from "../../../../cli/ship/server-json/files.js";

function manifestOf(text: string) {
  return { path: "package.json", text, fields: JSON.parse(text) as Record<string, unknown> };
}

test("mcpName is added after the top-level name and everything else in package.json keeps its formatting", () => {
  const text = '{\n  "name": "weather",\n  "version": "0.1.0",\n  "engines": { "node": ">=20.19" },\n  "dependencies": { "ajv": "^8.20.0" }\n}\n';
  assert.equal(withMcpName(manifestOf(text), "io.github.octo/weather"), text.replace('"name": "weather",\n', '"name": "weather",\n  "mcpName": "io.github.octo/weather",\n'));
});

test("an mcpName already there is replaced in place", () => {
  const text = '{\n\t"mcpName": "io.github.old/name",\n\t"name": "weather"\n}\n';
  assert.equal(withMcpName(manifestOf(text), "io.github.new/name"), text.replace("io.github.old/name", "io.github.new/name"));
});

test("a package.json the edit cannot place the key in is written out whole, with the key", () => {
  const text = '{"version": "0.1.0", "name": "weather"}';
  const written = withMcpName(manifestOf(text), "io.github.octo/weather");
  assert.deepEqual(JSON.parse(written), { version: "0.1.0", name: "weather", mcpName: "io.github.octo/weather" });
});

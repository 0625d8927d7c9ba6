import assert from "node:assert/strict";
import { test } from "node:test";
import { loadFormatter } from "../../../cli/generate/format.js";

test("TypeScript files are formatted with fixed options; other files pass through untouched", async () => {
  const format = await loadFormatter();
  assert.equal(await format("a.ts", "export const  a={b:1}"), "export const a = { b: 1 };\n");
  assert.equal(await format("notes.md", "keep  as is"), "keep  as is");
});

test("generated TypeScript that does not parse is a one-line error calling it a generator bug", async () => {
  const format = await loadFormatter();
  await assert.rejects(format("methods.ts", "export const = ;\n"), (error: Error & { hint?: string }) => {
    assert.equal(error.name, "CliError");
    assert.match(error.message, /^the generated methods\.ts is not valid TypeScript: /);
    assert.doesNotMatch(error.message, /\n/);
    assert.match(error.hint ?? "", /generator bug/);
    return true;
  });
});

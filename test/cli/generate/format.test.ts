import assert from "node:assert/strict";
import { test } from "node:test";
import { formatClaimed, loadFormatter } from "../../../cli/generate/format.js";

test("TypeScript files are formatted with fixed options; other files pass through untouched", async () => {
  const format = await loadFormatter();
  assert.equal(await format("a.ts", "export const  a={b:1}"), "export const a = { b: 1 };\n");
  assert.equal(await format("notes.md", "keep  as is"), "keep  as is");
});

test("a runtime template that does not parse is a one-line error naming the template", async () => {
  const format = await loadFormatter();
  await assert.rejects(format("runtime/broken.ts", "export const = ;\n"), (error: Error & { hint?: string }) => {
    assert.equal(error.name, "CliError");
    assert.match(error.message, /^templates\/runtime\/broken\.ts is not valid TypeScript: /);
    assert.doesNotMatch(error.message, /\n/);
    assert.match(error.hint ?? "", /fix the template/);
    return true;
  });
});

test("files claimed from a shared list are each formatted exactly once", async () => {
  const files: Array<[string, string]> = [
    ["a.ts", "const a=1"],
    ["b.ts", "const b=2"],
    ["c.ts", "const c=3"],
  ];
  const next = new Int32Array(new SharedArrayBuffer(4));
  Atomics.store(next, 0, 1); // another thread already took a.ts
  const done = await formatClaimed(files, next);
  assert.deepEqual(done, [
    ["b.ts", "const b = 2;\n"],
    ["c.ts", "const c = 3;\n"],
  ]);
  assert.deepEqual(await formatClaimed(files, next), [], "nothing left to claim");
});

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { replaceFolder, staleFiles } from "../../../cli/generate/write.js";
import { tempFolder } from "./helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("mcp-gen-write")));
afterEach(() => temp.remove());

test("the new output replaces the old folder whole, leaving no temp folder", async () => {
  const target = join(temp.dir, "v2607");
  mkdirSync(target);
  writeFileSync(join(target, "old.ts"), "old\n");
  await replaceFolder(
    target,
    new Map([
      ["a.ts", "a\n"],
      ["runtime/b.ts", "b\n"],
    ]),
  );
  assert.deepEqual(readdirSync(target).sort(), ["a.ts", "runtime"]);
  assert.equal(readFileSync(join(target, "runtime", "b.ts"), "utf8"), "b\n");
  assert.deepEqual(readdirSync(temp.dir), ["v2607"]);
});

test("a failed write leaves the previous output as it was, and no temp folder", async () => {
  const target = join(temp.dir, "v2607");
  mkdirSync(target);
  writeFileSync(join(target, "old.ts"), "old\n");
  // "a.ts" is written as a file first, so "a.ts/b.ts" cannot be: the write fails midway.
  await assert.rejects(
    replaceFolder(
      target,
      new Map([
        ["a.ts", "a\n"],
        ["a.ts/b.ts", "b\n"],
      ]),
    ),
    /cannot write/,
  );
  assert.deepEqual(readdirSync(target), ["old.ts"]);
  assert.deepEqual(readdirSync(temp.dir), ["v2607"]);
});

test("stale files are the changed, the missing and the extra ones, sorted", () => {
  const target = join(temp.dir, "v2607");
  mkdirSync(join(target, "runtime"), { recursive: true });
  writeFileSync(join(target, "same.ts"), "same\n");
  writeFileSync(join(target, "changed.ts"), "before\n");
  writeFileSync(join(target, "runtime", "extra.ts"), "extra\n");
  const expected = new Map([
    ["same.ts", "same\n"],
    ["changed.ts", "after\n"],
    ["missing.ts", "m\n"],
  ]);
  assert.deepEqual(staleFiles(target, expected), ["changed.ts", "missing.ts", "runtime/extra.ts"]);
  assert.equal(existsSync(join(target, "missing.ts")), false, "nothing written");
});

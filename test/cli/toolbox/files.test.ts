import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { listFiles } from "../../../cli/toolbox/files.js";
import { tempFolder } from "../scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("mcp-gen-files")));
afterEach(() => temp.remove());

test("every file is listed once, relative with /, in code-unit order, without following links", () => {
  mkdirSync(join(temp.dir, "b", "deep"), { recursive: true });
  for (const path of ["Z.ts", "a.ts", "b/deep/c.ts", "b/x.ts"]) writeFileSync(join(temp.dir, path), "");
  symlinkSync(temp.dir, join(temp.dir, "b", "loop"));
  assert.deepEqual(listFiles(temp.dir), ["Z.ts", "a.ts", "b/deep/c.ts", "b/loop", "b/x.ts"]);
  assert.deepEqual(listFiles(join(temp.dir, "b"), "b/"), ["b/deep/c.ts", "b/loop", "b/x.ts"]);
});

test("a missing folder lists nothing", () => {
  assert.deepEqual(listFiles(join(temp.dir, "missing")), []);
});

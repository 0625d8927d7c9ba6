import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { replaceFolder, writeFilesAtomically } from "../../../cli/toolbox/write.js";
import { tempFolder } from "../scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("mcp-gen-write")));
afterEach(() => temp.remove());

/** Every path below dir, relative, sorted: what a failed write must leave unchanged. */
function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}

/** A CliError whose message matches: a one-line refusal, not an internal error. */
function refusal(message: RegExp) {
  return (error: unknown) => error instanceof CliError && message.test(error.message) && !error.message.includes("\n");
}

test("a write that fails leaves the folder as it was: no temporaries, no new folders, old files intact", () => {
  writeFileSync(join(temp.dir, "a.txt"), "old");
  mkdirSync(join(temp.dir, "blocker"));
  writeFileSync(join(temp.dir, "blocker", "keep.txt"), "keep");
  const before = tree(temp.dir);
  assert.throws(
    () =>
      writeFilesAtomically(temp.dir, [
        { path: "a.txt", content: "new" },
        { path: "fresh/deep/c.txt", content: "c" },
        { path: "blocker", content: "a file cannot replace a folder" },
      ]),
    refusal(/blocker is a folder/),
  );
  assert.deepEqual(tree(temp.dir), before);
  assert.equal(readFileSync(join(temp.dir, "a.txt"), "utf8"), "old");
});

test("a successful write replaces and creates every file and leaves no temporaries", () => {
  writeFileSync(join(temp.dir, "a.txt"), "old");
  writeFilesAtomically(temp.dir, [
    { path: "a.txt", content: "new" },
    { path: "src/b.ts", content: "b" },
  ]);
  assert.deepEqual(tree(temp.dir), ["a.txt", "src", "src/b.ts"]);
  assert.equal(readFileSync(join(temp.dir, "a.txt"), "utf8"), "new");
});

test("a file where a target needs a folder is a one-line error, and the folder is left as it was", () => {
  writeFileSync(join(temp.dir, "notes"), "mine");
  writeFileSync(join(temp.dir, "a.txt"), "old");
  const before = tree(temp.dir);
  for (const path of ["notes/child.ts", "notes/deep/child.ts"]) {
    assert.throws(
      () =>
        writeFilesAtomically(temp.dir, [
          { path: "a.txt", content: "new" },
          { path: "fresh/b.ts", content: "b" },
          { path, content: "below a file" },
        ]),
      refusal(/notes is a file in .*, so notes\/.*child\.ts cannot be written below it/),
      path,
    );
    assert.deepEqual(tree(temp.dir), before, `${path}: no temporaries, no new folders`);
    assert.equal(readFileSync(join(temp.dir, "a.txt"), "utf8"), "old");
  }
});

test("nothing is written through a link that leads out of the folder", () => {
  const target = join(temp.dir, "project");
  const elsewhere = join(temp.dir, "elsewhere");
  mkdirSync(target);
  mkdirSync(elsewhere);
  symlinkSync(elsewhere, join(target, "src"));
  symlinkSync(join(temp.dir, "missing"), join(target, "dangling"));
  for (const path of ["src/server.ts", "src/deep/x.ts", "dangling/x.ts"]) {
    assert.throws(
      () =>
        writeFilesAtomically(target, [
          { path: "package.json", content: "{}" },
          { path, content: "x" },
        ]),
      refusal(/is a symbolic link to .*outside the folder/),
      path,
    );
  }
  assert.deepEqual(readdirSync(elsewhere), [], "nothing outside the target");
  assert.deepEqual(tree(target), ["dangling", "src"], "nothing inside either: all or nothing");
});

test("a link that stays inside the folder is written through", () => {
  mkdirSync(join(temp.dir, "real"));
  symlinkSync(join(temp.dir, "real"), join(temp.dir, "alias"));
  writeFilesAtomically(temp.dir, [{ path: "alias/x.ts", content: "x" }]);
  assert.equal(readFileSync(join(temp.dir, "real", "x.ts"), "utf8"), "x");
});

test("a replaced folder holds exactly the new files, or the old ones when the write fails", () => {
  const target = join(temp.dir, "out");
  replaceFolder(target, new Map([["v/a.ts", "a"]]));
  replaceFolder(target, new Map([["v/b.ts", "b"]]));
  assert.deepEqual(tree(temp.dir), ["out", "out/v", "out/v/b.ts"]);
  assert.throws(
    () =>
      replaceFolder(target, [
        { path: "c.ts", content: "c" },
        { path: "c.ts/d.ts", content: "below a file" },
      ]),
    refusal(/^cannot write .*out: E(NOTDIR|EXIST)/),
  );
  assert.deepEqual(tree(temp.dir), ["out", "out/v", "out/v/b.ts"], "the previous output, and no staging folder");
});

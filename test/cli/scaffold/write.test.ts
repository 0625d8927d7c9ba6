import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { refuseExisting, writeFilesAtomically, writeProjectFolder } from "../../../cli/scaffold/write.js";
import { tempFolder } from "./helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("mcp-gen-write")));
afterEach(() => temp.remove());

/** Every path below dir, relative, sorted: what a failed write must leave unchanged. */
function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}

test("a write that fails leaves the folder as it was: no temporaries, no new folders, old files intact", () => {
  writeFileSync(join(temp.dir, "a.txt"), "old");
  mkdirSync(join(temp.dir, "blocker"));
  writeFileSync(join(temp.dir, "blocker", "keep.txt"), "keep");
  const before = tree(temp.dir);
  assert.throws(() =>
    writeFilesAtomically(temp.dir, [
      { path: "a.txt", content: "new" },
      { path: "fresh/deep/c.txt", content: "c" },
      { path: "blocker", content: "a file cannot replace a folder" },
    ]),
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

test("existing files are refused without force, naming them", () => {
  writeFileSync(join(temp.dir, "a.txt"), "old");
  assert.throws(
    () =>
      refuseExisting(
        temp.dir,
        [
          { path: "a.txt", content: "" },
          { path: "b.txt", content: "" },
        ],
        false,
      ),
    (error: unknown) => error instanceof CliError && /a\.txt/.test(error.message) && !/b\.txt/.test(error.message) && /--force/.test(error.hint ?? ""),
  );
  refuseExisting(temp.dir, [{ path: "a.txt", content: "" }], true);
});

test("a project folder appears whole or not at all", () => {
  const target = join(temp.dir, "app");
  writeProjectFolder(
    target,
    [
      { path: "package.json", content: "{}" },
      { path: "src/x.ts", content: "" },
    ],
    false,
  );
  assert.deepEqual(tree(temp.dir), ["app", "app/package.json", "app/src", "app/src/x.ts"]);
  const broken = join(temp.dir, "broken");
  assert.throws(() =>
    writeProjectFolder(
      broken,
      [
        { path: "ok.txt", content: "" },
        { path: "ok.txt/child", content: "" },
      ],
      false,
    ),
  );
  assert.deepEqual(tree(temp.dir), ["app", "app/package.json", "app/src", "app/src/x.ts"], "no staging folder left behind");
});

test("a non-empty folder is refused without overwrite, and written into with it", () => {
  const target = join(temp.dir, "app");
  mkdirSync(target);
  writeFileSync(join(target, "notes.md"), "mine");
  assert.throws(
    () => writeProjectFolder(target, [{ path: "package.json", content: "{}" }], false),
    (error: unknown) => error instanceof CliError && /not empty/.test(error.message) && /--overwrite/.test(error.hint ?? ""),
  );
  assert.deepEqual(tree(target), ["notes.md"]);
  writeProjectFolder(target, [{ path: "package.json", content: "{}" }], true);
  assert.deepEqual(tree(target), ["notes.md", "package.json"]);
});

test("an existing empty folder is written into, not replaced", () => {
  const target = join(temp.dir, "here");
  mkdirSync(target);
  const inode = statSync(target).ino;
  writeProjectFolder(target, [{ path: "package.json", content: "{}" }], false);
  assert.equal(statSync(target).ino, inode, "the same folder: a shell inside it keeps working");
  assert.deepEqual(tree(target), ["package.json"]);
});

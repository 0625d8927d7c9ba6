import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { refuseExisting, writeProjectFolder } from "../../../cli/scaffold/write.js";
import { tempFolder } from "./helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("mcp-gen-write")));
afterEach(() => temp.remove());

/** Every path below dir, relative, sorted: what a failed write must leave unchanged. */
function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}

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

test("a project target that is a file is a one-line error, and the file is left alone", () => {
  const target = join(temp.dir, "app");
  writeFileSync(target, "mine");
  for (const overwrite of [false, true]) {
    assert.throws(
      () => writeProjectFolder(target, [{ path: "package.json", content: "{}" }], overwrite),
      (error: unknown) => error instanceof CliError && /app is a file, not a folder/.test(error.message),
    );
  }
  assert.equal(readFileSync(target, "utf8"), "mine");
});

test("a new project folder gets the user's umask, not a private temp folder's mode", () => {
  const previous = process.umask(0o022);
  try {
    writeProjectFolder(join(temp.dir, "app"), [{ path: "src/x.ts", content: "" }], false);
  } finally {
    process.umask(previous);
  }
  assert.equal((statSync(join(temp.dir, "app")).mode & 0o777).toString(8), "755");
  assert.equal((statSync(join(temp.dir, "app", "src")).mode & 0o777).toString(8), "755");
});

test("--overwrite never writes through a subfolder link that leaves the target", () => {
  const target = join(temp.dir, "app");
  const elsewhere = join(temp.dir, "elsewhere");
  mkdirSync(target);
  mkdirSync(elsewhere);
  symlinkSync(elsewhere, join(target, "src"));
  assert.throws(
    () =>
      writeProjectFolder(
        target,
        [
          { path: "package.json", content: "{}" },
          { path: "src/server.ts", content: "" },
        ],
        true,
      ),
    (error: unknown) => error instanceof CliError && /src in .* is a symbolic link to .*elsewhere, outside the folder/.test(error.message),
  );
  assert.deepEqual(readdirSync(elsewhere), []);
  assert.deepEqual(tree(target), ["src"]);
});

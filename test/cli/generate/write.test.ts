import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { MANIFEST_FILE, staleAgainstManifest } from "../../../cli/generate/manifest.js";
import { replaceFolder, staleFiles } from "../../../cli/generate/write.js";
import { tempFolder } from "./helpers.js";

let temp: ReturnType<typeof tempFolder>;

/** A manifest whose outputs list `paths` (hashes are not what replacing checks). */
function manifestListing(...paths: string[]): string {
  return `${JSON.stringify({ inputs: {}, outputs: Object.fromEntries(paths.map((path) => [path, "0"])), summary: {} })}\n`;
}
beforeEach(() => (temp = tempFolder("mcp-gen-write")));
afterEach(() => temp.remove());

test("the new output replaces the old folder whole, leaving no temp folder", async () => {
  const target = join(temp.dir, "v2607");
  mkdirSync(target);
  writeFileSync(join(target, MANIFEST_FILE), manifestListing("old.ts"));
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
  writeFileSync(join(target, MANIFEST_FILE), manifestListing("old.ts"));
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
  assert.deepEqual(readdirSync(target).sort(), [MANIFEST_FILE, "old.ts"]);
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

test("only a folder that carries our manifest, an empty one or a missing one is replaced; any other is refused untouched", async () => {
  const files = new Map([["a.ts", "a\n"]]);
  await replaceFolder(join(temp.dir, "missing"), files);
  mkdirSync(join(temp.dir, "empty"));
  await replaceFolder(join(temp.dir, "empty"), files);
  assert.deepEqual(readdirSync(join(temp.dir, "empty")), ["a.ts"]);

  const user = join(temp.dir, "v2607");
  mkdirSync(user);
  writeFileSync(join(user, "notes.md"), "mine\n");
  await assert.rejects(replaceFolder(user, files), (error: Error) => {
    assert.ok(error instanceof CliError, String(error));
    assert.match(error.message, /v2607 holds files mcp-gen did not write \(no mcp-gen\.manifest\.json\)/);
    assert.doesNotMatch(error.message, /\n/);
    return true;
  });
  assert.deepEqual(readdirSync(user), ["notes.md"], "the user's folder is untouched");
  assert.deepEqual(readdirSync(temp.dir).sort(), ["empty", "missing", "v2607"], "no temp folder left");
});

test("a symlink loop inside the output is stale, never followed", () => {
  const target = join(temp.dir, "v2607");
  mkdirSync(target);
  writeFileSync(join(target, "same.ts"), "same\n");
  symlinkSync(".", join(target, "loop"));
  assert.deepEqual(staleFiles(target, new Map([["same.ts", "same\n"]])), ["loop"]);
  const manifest = { inputs: { generator: "g", revision: "r", schemaSha256: "s" }, outputs: {}, summary: {} };
  writeFileSync(join(target, MANIFEST_FILE), JSON.stringify(manifest));
  assert.deepEqual(staleAgainstManifest(target, manifest.inputs as never), ["loop", "same.ts"], "the manifest lists neither");
});

test("a folder with our manifest is replaced only when the manifest lists every file in it; otherwise the run refuses naming the others", async () => {
  const files = new Map([["types.ts", "new\n"]]);
  const target = join(temp.dir, "v2607");
  mkdirSync(join(target, "src"), { recursive: true });
  writeFileSync(join(target, MANIFEST_FILE), manifestListing("types.ts"));
  writeFileSync(join(target, "types.ts"), "old\n");
  writeFileSync(join(target, "NOTES.md"), "mine\n");
  writeFileSync(join(target, "schema.json"), "{}\n");
  writeFileSync(join(target, "src", "mine.ts"), "mine\n");
  const before = readdirSync(target, { recursive: true }).sort();
  await assert.rejects(replaceFolder(target, files), (error: Error) => {
    assert.ok(error instanceof CliError, String(error));
    assert.match(
      error.message,
      /v2607 holds files mcp-gen did not write \(NOTES\.md, schema\.json, src\/mine\.ts: not in its mcp-gen\.manifest\.json\); refusing to replace it$/,
    );
    assert.doesNotMatch(error.message, /\n/);
    return true;
  });
  assert.deepEqual(readdirSync(target, { recursive: true }).sort(), before, "nothing written or removed");
  assert.equal(readFileSync(join(target, "types.ts"), "utf8"), "old\n");
  assert.deepEqual(readdirSync(temp.dir), ["v2607"], "no temp folder left");

  writeFileSync(join(target, MANIFEST_FILE), "not json\n");
  await assert.rejects(replaceFolder(target, files), /mcp-gen\.manifest\.json is not a manifest mcp-gen wrote \(no outputs list\)/);

  for (const path of ["NOTES.md", "schema.json", "src/mine.ts"]) rmSync(join(target, path));
  rmdirSync(join(target, "src"));
  writeFileSync(join(target, MANIFEST_FILE), manifestListing("types.ts"));
  await replaceFolder(target, files);
  assert.equal(readFileSync(join(target, "types.ts"), "utf8"), "new\n");
});

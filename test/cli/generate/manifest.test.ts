import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { describeChanges, isFresh, MANIFEST_FILE, renderManifest, type ManifestInputs, type Summary } from "../../../cli/generate/manifest.js";
import { tempFolder } from "./helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("mcp-gen-manifest")));
afterEach(() => temp.remove());

const inputs: ManifestInputs = { generator: "g", revision: "2026-07-28", schemaSha256: "s" };
const runtime = { runtimeSourceSha256: "t", legacyFolders: ["v2511", "v2506"] };
const summary: Summary = { types: ["A"], methods: ["tools/list"], filterKeys: ["toolsListChanged"], flags: ["tools.listChanged"] };

function writeOutput(files: Map<string, string>, made: ManifestInputs = inputs): string {
  const dir = join(temp.dir, "v2607");
  rmSync(dir, { recursive: true, force: true });
  for (const path of files.keys()) mkdirSync(join(dir, path, ".."), { recursive: true });
  for (const [path, text] of files) writeFileSync(join(dir, path), text);
  writeFileSync(join(dir, MANIFEST_FILE), renderManifest(made, files, summary));
  return dir;
}

test("an output is fresh for the inputs it was made from, by hashing alone", () => {
  const dir = writeOutput(new Map([["types.ts", "export type A = 1;\n"]]));
  assert.equal(isFresh(dir, inputs), true);
  assert.equal(isFresh(dir, { ...inputs, schemaSha256: "other" }), false, "another schema");
  assert.equal(isFresh(dir, { ...inputs, generator: "other" }), false, "another generator");
});

test("the runtime source and legacy folder count only for an output with a runtime", () => {
  const withRuntime = writeOutput(new Map([["runtime/index.ts", "export {};\n"]]), { ...inputs, ...runtime });
  assert.equal(isFresh(withRuntime, inputs, runtime), true);
  assert.equal(isFresh(withRuntime, inputs, { ...runtime, runtimeSourceSha256: "other" }), false, "other runtime source");
  assert.equal(isFresh(withRuntime, inputs, { ...runtime, legacyFolders: ["v2511"] }), false, "another legacy binding");
  const typesOnly = writeOutput(new Map([["types.ts", "export type A = 1;\n"]]));
  assert.equal(isFresh(typesOnly, inputs, { ...runtime, runtimeSourceSha256: "other" }), true, "a runtime edit leaves it fresh");
});

test("a file edited, removed or added by hand makes the output stale", () => {
  const dir = writeOutput(new Map([["types.ts", "export type A = 1;\n"]]));
  writeFileSync(join(dir, "types.ts"), "export type A = 2;\n");
  assert.equal(isFresh(dir, inputs), false);
  writeOutput(new Map([["types.ts", "export type A = 1;\n"]]));
  writeFileSync(join(dir, "extra.ts"), "\n");
  assert.equal(isFresh(dir, inputs), false);
});

test("changes list what was added and removed per kind", () => {
  const next: Summary = { types: ["A", "B"], methods: [], filterKeys: ["toolsListChanged", "elicitationComplete"], flags: [] };
  assert.deepEqual(describeChanges(summary, next), ["+ type B", "- method tools/list", "+ filter key elicitationComplete", "- flag tools.listChanged"]);
  assert.deepEqual(describeChanges(undefined, next), [], "a first generation has nothing to compare with");
});

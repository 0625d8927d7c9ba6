import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import {
  describeChanges,
  MANIFEST_FILE,
  manifestInCurrentForm,
  readManifest,
  renderManifest,
  runtimePlacement,
  staleAgainstManifest,
  type ManifestInputs,
  type Summary,
} from "../../../cli/generate/manifest.js";
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
  assert.deepEqual(staleAgainstManifest(dir, inputs), []);
  assert.equal(staleAgainstManifest(dir, { ...inputs, schemaSha256: "other" }), undefined, "another schema");
  assert.equal(staleAgainstManifest(dir, { ...inputs, generator: "other" }), undefined, "another generator");
});

test("the runtime source and legacy folder count only for an output with a runtime", () => {
  const withRuntime = writeOutput(new Map([["runtime/index.ts", "export {};\n"]]), { ...inputs, ...runtime });
  assert.deepEqual(staleAgainstManifest(withRuntime, inputs, runtime), []);
  assert.equal(staleAgainstManifest(withRuntime, inputs, { ...runtime, runtimeSourceSha256: "other" }), undefined, "other runtime source");
  assert.equal(staleAgainstManifest(withRuntime, inputs, { ...runtime, legacyFolders: ["v2511"] }), undefined, "another legacy binding");
  const typesOnly = writeOutput(new Map([["types.ts", "export type A = 1;\n"]]));
  assert.deepEqual(staleAgainstManifest(typesOnly, inputs, { ...runtime, runtimeSourceSha256: "other" }), [], "a runtime edit leaves it fresh");
});

test("one manifest input says where the runtime serving the revision lives: beside it, kept by the project, or none", () => {
  const served = { ...summary, listenStream: true };
  const write = (files: Map<string, string>, made: object, withSummary: Summary = served) => {
    const dir = writeOutput(files);
    writeFileSync(join(dir, MANIFEST_FILE), renderManifest(made as ManifestInputs, files, withSummary));
    return dir;
  };
  const types = new Map([["types.ts", "export type A = 1;\n"]]);
  const kept = write(types, { ...inputs, runtime: "kept" });
  assert.equal(runtimePlacement(readManifest(kept)!), "kept");
  assert.deepEqual(staleAgainstManifest(kept, inputs, undefined, "kept"), []);
  assert.equal(staleAgainstManifest(kept, inputs, undefined, "none"), undefined, "--types-only output is not the kept runtime's");
  assert.equal(staleAgainstManifest(kept, inputs, runtime), undefined, "a copy beside it is another output");
  const none = write(types, { ...inputs, runtime: "none" });
  assert.deepEqual(staleAgainstManifest(none, inputs, undefined, "none"), []);
  assert.equal(staleAgainstManifest(none, inputs, runtime), undefined, "a --check without --types-only finds it stale");
  const initializeEra = write(types, inputs, { ...summary, listenStream: false });
  assert.equal(runtimePlacement(readManifest(initializeEra)!), undefined, "no runtime serves an initialize-era revision");
  assert.deepEqual(staleAgainstManifest(initializeEra, inputs, undefined, "none"), [], "the same output whatever the flag");
});

test("a manifest of the previous release (typesOnly, runtimeKept) is read back as the current one, and rewritten in its form", () => {
  const served = { ...summary, listenStream: true };
  const types = new Map([["types.ts", "export type A = 1;\n"]]);
  const earlier = (made: object, withSummary: Summary = served, files = types) => {
    const dir = writeOutput(files);
    writeFileSync(join(dir, MANIFEST_FILE), renderManifest(made as ManifestInputs, files, withSummary));
    return dir;
  };
  // Each written in turn: they share the one output folder.
  const cases = [
    { made: () => earlier({ ...inputs, runtimeKept: true }), placement: "kept" as const },
    { made: () => earlier({ ...inputs, typesOnly: true }), placement: "none" as const },
    { made: () => earlier({ ...inputs, typesOnly: true, runtimeKept: true }), placement: "kept" as const },
    { made: () => earlier({ ...inputs, ...runtime }, served, new Map([["runtime/index.ts", "export {};\n"]])), placement: "beside" as const },
  ];
  for (const { made, placement } of cases) {
    const dir = made();
    const manifest = readManifest(dir)!;
    assert.equal(runtimePlacement(manifest), placement);
    assert.deepEqual(staleAgainstManifest(dir, inputs, placement === "beside" ? runtime : undefined, placement), [], placement);
    const current = JSON.parse(manifestInCurrentForm(manifest)!);
    assert.deepEqual(Object.keys(current.inputs), [...Object.keys(inputs), "runtime", ...(placement === "beside" ? Object.keys(runtime) : [])]);
    assert.equal(current.inputs.runtime, placement);
    assert.deepEqual([current.outputs, current.summary], [manifest.outputs, manifest.summary], "the files and summary as they were");
    assert.equal(manifestInCurrentForm(current), undefined, "the current form is left as it is");
  }
  const initializeEra = earlier({ ...inputs, typesOnly: true }, { ...summary, listenStream: false });
  assert.equal(JSON.parse(manifestInCurrentForm(readManifest(initializeEra)!)!).inputs.typesOnly, undefined, "no runtime to place");
});

test("a file edited, removed or added by hand makes the output stale", () => {
  const dir = writeOutput(new Map([["types.ts", "export type A = 1;\n"]]));
  writeFileSync(join(dir, "types.ts"), "export type A = 2;\n");
  assert.deepEqual(staleAgainstManifest(dir, inputs), ["types.ts"]);
  writeOutput(new Map([["types.ts", "export type A = 1;\n"]]));
  writeFileSync(join(dir, "extra.ts"), "\n");
  assert.deepEqual(staleAgainstManifest(dir, inputs), ["extra.ts"]);
  rmSync(join(dir, "types.ts"));
  assert.deepEqual(staleAgainstManifest(dir, inputs), ["extra.ts", "types.ts"]);
});

test("changes list what was added and removed per kind", () => {
  const next: Summary = { types: ["A", "B"], methods: [], filterKeys: ["toolsListChanged", "elicitationComplete"], flags: [] };
  assert.deepEqual(describeChanges(summary, next), ["+ type B", "- method tools/list", "+ filter key elicitationComplete", "- flag tools.listChanged"]);
  assert.deepEqual(describeChanges(undefined, next), [], "a first generation has nothing to compare with");
});

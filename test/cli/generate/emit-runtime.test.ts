import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { BINDING_FILE, emitRuntime, LEGACY_BINDING_FILE, readRuntimeTemplates } from "../../../cli/generate/emit-runtime.js";
import { runtimeTemplatesDir } from "../../../cli/generate/paths.js";
import { repoRoot } from "../../support/schemas.js";
import { put, tempFolder } from "./helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("mcp-gen-runtime")));
afterEach(() => temp.remove());

test("the runtime templates are found beside the generator's own package, not the working folder", () => {
  assert.equal(runtimeTemplatesDir, join(repoRoot, "templates", "runtime"));
});

test("every template lands under runtime/, sorted, and TypeScript files get the header", () => {
  put(join(temp.dir, "b.ts"), "export const b = 1;\n");
  put(join(temp.dir, "sub", "a.ts"), 'import type { ClientRequests } from "../../methods.js";\n');
  put(join(temp.dir, "notes.md"), "# notes\n");
  const templates = readRuntimeTemplates(temp.dir);
  assert.deepEqual([...templates.keys()], ["runtime/b.ts", "runtime/notes.md", "runtime/sub/a.ts"]);
  const emitted = emitRuntime(templates, "// header\n");
  assert.equal(emitted.get("runtime/b.ts"), "// header\nexport const b = 1;\n");
  assert.equal(emitted.get("runtime/notes.md"), "# notes\n");
});

test("a missing templates folder is an empty runtime", () => {
  assert.equal(readRuntimeTemplates(join(temp.dir, "absent")).size, 0);
});

test("both binding modules are rewritten to the folders generated beside the emitted runtime", () => {
  const templates = new Map([
    [BINDING_FILE, 'export * from "../../generated/v2607/types.js";\n'],
    [LEGACY_BINDING_FILE, 'export * from "../../../generated/v2511/types.js";\n'],
  ]);
  const emitted = emitRuntime(templates, "// header\n");
  assert.match(emitted.get(BINDING_FILE)!, /^\/\/ header\n[^]*from "\.\.\/types\.js"/);
  assert.doesNotMatch(emitted.get(BINDING_FILE)!, /generated\//);
  assert.match(emitted.get(LEGACY_BINDING_FILE)!, /^\/\/ header\n[^]*from "\.\.\/\.\.\/\.\.\/v2511\/types\.js"/);
  assert.doesNotMatch(emitted.get(LEGACY_BINDING_FILE)!, /generated\//);
});

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { generateTypes } from "../../../../cli/generate/index.js";
import { findPublishedExtension } from "../../../../cli/generate/extension-package.js";
import { hoistNestedDefinitions } from "../../../../cli/generate/extension-form.js";
import { listFiles } from "../../../../cli/toolbox/files.js";
import { repoRoot, schemaPath } from "../../../support/schemas.js";
import { explain, put, runMcpGen, tempFolder, tscStrict } from "../../../cli/generate/helpers.js";

/**
 * `--extension <package>`: an official extension's own published JSON Schema (MCP Apps, from
 * the installed @modelcontextprotocol/ext-apps), its facts derived as the tasks extension's are.
 */
const SLOW = { timeout: 180_000 };
const TASKS = "io.modelcontextprotocol/tasks";
const APPS = "@modelcontextprotocol/ext-apps";
const core = () => schemaPath("2026-07-28");
const publishedSchema = join(repoRoot, "node_modules", APPS, "dist", "src", "generated", "schema.json");

let temp: ReturnType<typeof tempFolder>;
let withApps: string;
let withoutApps: string;
before(async () => {
  temp = tempFolder("mcp-gen-published");
  withApps = (await generateTypes({ schema: core(), out: join(temp.dir, "with"), extensions: [TASKS, APPS], runtime: "kept" })).outDir;
  withoutApps = (await generateTypes({ schema: core(), out: join(temp.dir, "without"), extensions: [TASKS], runtime: "kept" })).outDir;
});
after(() => temp.remove());

const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");
const body = (text: string) => text.slice(text.indexOf("\n") + 1);

test("a package name finds the schema the package exports and the identifier its declarations export", () => {
  const found = findPublishedExtension(APPS, repoRoot);
  assert.ok(found, "installed as a dev dependency");
  assert.equal(found.schemaPath, publishedSchema);
  assert.equal(found.id, "io.modelcontextprotocol/ui");
});

test("--extension @modelcontextprotocol/ext-apps merges the published schema: its McpUi* definitions become types", () => {
  const types = read(withApps, "types.ts");
  for (const name of ["McpUiToolMeta", "McpUiResourceMeta", "McpUiClientCapabilities", "McpUiInitializeRequest", "McpUiHostContext"]) {
    assert.match(types, new RegExp(`export (interface|type) ${name}\\b`), name);
  }
  assert.match(
    read(withApps, "capabilities.ts").split("\n")[0],
    /with io\.modelcontextprotocol\/ui \(sha256 [0-9a-f]{64}\).*--extension @modelcontextprotocol\/ext-apps$/,
  );
  const manifest = JSON.parse(read(withApps, "mcp-gen.manifest.json"));
  assert.deepEqual(
    manifest.inputs.extensions.map((entry: { id: string }) => entry.id),
    [TASKS, "io.modelcontextprotocol/ui"],
  );
});

test("the generated facts name the extension's _meta key, MIME type, capability flags and its own methods", () => {
  const capabilities = read(withApps, "capabilities.ts");
  const ui = capabilities.slice(capabilities.indexOf('"io.modelcontextprotocol/ui": {'));
  assert.match(ui, /metaKey: "ui",/);
  assert.match(ui, /meta: \{\n\s+Resource: "McpUiResourceMeta",\n\s+Tool: "McpUiToolMeta",\n\s+\},/);
  assert.match(ui, /mimeTypes: \["text\/html;profile=mcp-app"\],/);
  assert.match(ui, /Client: \{\n\s+flags: \["mimeTypes"\],\n\s+type: "McpUiClientCapabilities",/);
  assert.match(ui, /"ui\/initialize": \{\n\s+request: "McpUiInitializeRequest",\n\s+result: "McpUiInitializeResult",/);
  assert.match(ui, /"ui\/notifications\/tool-result": "McpUiToolResultNotification",/);
  // A view's messages to its host are not the session's: the maps do not list them.
  assert.doesNotMatch(read(withApps, "methods.ts"), /ui\//);
});

test("without the flag the output is byte-identical: the committed generated/v2607 is what tasks alone gives", () => {
  const committed = join(repoRoot, "generated", "v2607");
  const files = listFiles(withoutApps);
  assert.deepEqual(files, listFiles(committed));
  for (const file of files) assert.equal(read(withoutApps, file), read(committed, file), file);
});

test("with the flag only additions: methods and shapes are unchanged, every core type is kept", () => {
  assert.equal(body(read(withApps, "methods.ts")), body(read(withoutApps, "methods.ts")));
  assert.equal(body(read(withApps, "shapes.ts")), body(read(withoutApps, "shapes.ts")));
  const capabilities = body(read(withApps, "capabilities.ts"));
  const before = body(read(withoutApps, "capabilities.ts"));
  const tasksEntry = before.slice(0, before.lastIndexOf("} as const;"));
  assert.ok(capabilities.startsWith(tasksEntry), "the tasks extension's facts and everything above them are unchanged");
  const typesWith = read(withApps, "types.ts");
  for (const line of read(withoutApps, "types.ts")
    .split("\n")
    .filter((l) => l.startsWith("export ")))
    assert.ok(typesWith.includes(line), line);
});

test("each definition's own $defs is hoisted once, with its references rewritten", () => {
  const published = JSON.parse(readFileSync(publishedSchema, "utf8"));
  const hoisted = hoistNestedDefinitions(published.$defs);
  const text = JSON.stringify(hoisted);
  assert.ok(!text.includes("#/$defs/__schema0"), "no reference left pointing at a nested definition");
  for (const [name, def] of Object.entries(hoisted)) assert.ok(!("$schema" in (def as object)) && !("$defs" in (def as object)), name);
  assert.ok(hoisted.McpUiHostContextSchema0, "named after its first owner");
  assert.equal(Object.keys(hoisted).length, Object.keys(published.$defs).length + 1, "three equal nested definitions share one");
  assert.match(text, /"\$ref":"#\/\$defs\/McpUiHostContextSchema0"/);
});

test("the merged output compiles under tsc --strict", SLOW, async () => {
  const run = await tscStrict(["types.ts", "methods.ts", "capabilities.ts"].map((file) => join(withApps, file)));
  assert.equal(run.status, 0, explain(run));
});

test("a published schema given as a file takes its identifier after =, and without one is refused in one line", SLOW, async () => {
  const copy = join(temp.dir, "apps-schema.json");
  writeFileSync(copy, readFileSync(publishedSchema));
  const refused = await runMcpGen(["types", "--schema", core(), "--out", join(temp.dir, "nameless"), "--extension", copy]);
  assert.equal(refused.status, 1, explain(refused));
  const lines = refused.stderr.trim().split("\n");
  assert.match(lines[0], /names no extension: no identifier after "="/);
  assert.match(refused.stderr, new RegExp(`--extension ${copy.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}=<identifier>`));
  const named = await generateTypes({ schema: core(), out: join(temp.dir, "named"), extensions: [`${copy}=com.example/ui`] });
  assert.match(read(named.outDir, "capabilities.ts"), /"com\.example\/ui": \{[\s\S]*metaKey: "ui",/);
});

test("a package is looked up from the project first, and its declared identifier is the package's", async () => {
  const installed = join(temp.dir, "project", "node_modules", APPS);
  put(
    join(installed, "package.json"),
    JSON.stringify({ name: APPS, version: "9.9.9", exports: { "./server": { types: "./server.d.ts" }, "./schema.json": "./schema.json" } }),
  );
  put(join(installed, "server.d.ts"), 'export declare const EXTENSION_ID = "com.example/apps";\n');
  writeFileSync(join(installed, "schema.json"), readFileSync(publishedSchema));
  const report = await generateTypes({ schema: core(), out: join(temp.dir, "project-out"), extensions: [APPS], extensionsFrom: join(temp.dir, "project") });
  assert.match(read(report.outDir, "capabilities.ts"), /"com\.example\/apps": \{[\s\S]*metaKey: "apps",/, "the project's copy, with its identifier");
});

test("a package that is not installed is refused in one line naming how to install it", async () => {
  await assert.rejects(
    generateTypes({ schema: core(), out: join(temp.dir, "missing"), extensions: ["@example/not-installed-extension"] }),
    /extension package @example\/not-installed-extension is not installed/,
  );
});

// The straightforward `mcp-gen types` pipeline, the reference bench/types.mjs compares to:
// json-schema-to-typescript, prettier (its typescript parser) and ts-morph imported eagerly
// and run one after the other in one process; no worker thread, no manifest. The same files
// as the CLI (types, maps, the runtime found beside the build), each formatted once.
// Usage: node bench/types-baseline.mjs <build dir (compiled cli/)> <schema.json> <out dir>
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import "json-schema-to-typescript";
import * as prettier from "prettier";
import "ts-morph";

const [build, schemaPath, outDir] = process.argv.slice(2);
const stage = (name) => import(pathToFileURL(join(build, "cli", "generate", `${name}.js`)).href);
const { loadSchema } = await stage("load");
const { identifySchema, readLock } = await stage("verify");
const { normalizeSchema } = await stage("normalize");
const { buildIR } = await stage("ir");
const { emitTypes } = await stage("emit-types");
const { emitMaps } = await stage("emit-maps");
const { emitRuntime, readRuntimeTemplates } = await stage("emit-runtime");
const { runtimeTemplatesDir } = await stage("paths");

const loaded = await loadSchema(schemaPath);
const ir = buildIR(normalizeSchema(loaded), identifySchema(loaded, readLock()));
const types = await emitTypes(ir);
const maps = await emitMaps(ir.maps);
const runtime = emitRuntime(readRuntimeTemplates(runtimeTemplatesDir), "");
for (const [path, text] of [["types.ts", types], ...Object.entries(maps), ...runtime]) {
  const formatted = await prettier.format(text, { parser: "typescript", printWidth: 100, endOfLine: "lf" });
  mkdirSync(dirname(join(outDir, path)), { recursive: true });
  writeFileSync(join(outDir, path), formatted);
}

// The straightforward `mcp-gen types` pipeline, the reference bench/types.mjs compares to:
// json-schema-to-typescript, prettier (its typescript parser) and ts-morph imported eagerly
// and run one after the other in one process: json-schema-to-typescript declares the types,
// ts-morph parses and prints the two maps, prettier formats each file once. No manifest, and
// only the files the build's packages/runtime/src holds besides (none for the "types" variant).
// Usage: node bench/types-baseline.mjs <build dir (the package root, its CLI compiled under dist/)> <schema.json> <out dir>
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import "json-schema-to-typescript";
import * as prettier from "prettier";
import { Project } from "ts-morph";

const [build, schemaPath, outDir] = process.argv.slice(2);
const stage = (name) => import(pathToFileURL(join(build, "dist", "cli", "generate", `${name}.js`)).href);
const { loadSchema } = await stage("load");
const { identifySchema, readLock } = await stage("verify");
const { normalizeSchema } = await stage("normalize");
const { buildIR } = await stage("ir");
const { emitTypes } = await stage("emit-types");
const { emitMaps } = await stage("emit-maps");
const { emitRuntime, readRuntimeSource } = await stage("emit-runtime");
const { runtimeSourceDir } = await stage("paths");

const loaded = await loadSchema(schemaPath);
const ir = buildIR(normalizeSchema(loaded), identifySchema(loaded, readLock()));
const types = await emitTypes(ir);
const project = new Project({ useInMemoryFileSystem: true });
const maps = Object.entries(emitMaps(ir.maps)).map(([path, text]) => [path, project.createSourceFile(path, text).print()]);
// The initialize-era folder the runtime binds, as outside a project (the newest shipped).
const runtime = emitRuntime(readRuntimeSource(runtimeSourceDir), "", ["v2511"]);
for (const [path, text] of [["types.ts", types], ...maps, ...runtime]) {
  const formatted = await prettier.format(text, { parser: "typescript", printWidth: 100, endOfLine: "lf" });
  mkdirSync(dirname(join(outDir, path)), { recursive: true });
  writeFileSync(join(outDir, path), formatted);
}

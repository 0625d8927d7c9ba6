// The straightforward `mcp-gen types` pipeline, the reference bench/types.mjs compares to:
// json-schema-to-typescript, prettier and ts-morph imported eagerly and run one after the
// other in one process, no worker thread, no manifest. Same stages and output as the CLI.
// Usage: node bench/types-baseline.mjs <build dir (compiled cli/)> <schema.json> <out dir>
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import "json-schema-to-typescript";
import "prettier";
import "ts-morph";

const [build, schemaPath, outDir] = process.argv.slice(2);
const stage = (name) => import(pathToFileURL(join(build, "cli", "generate", `${name}.js`)).href);
const { loadSchema } = await stage("load");
const { identifySchema, readLock } = await stage("verify");
const { normalizeSchema } = await stage("normalize");
const { buildIR } = await stage("ir");
const { emitTypes } = await stage("emit-types");
const { emitMaps } = await stage("emit-maps");
const { formatFiles } = await stage("format");

const loaded = await loadSchema(schemaPath);
const ir = buildIR(normalizeSchema(loaded), identifySchema(loaded, readLock()));
const types = await emitTypes(ir);
const maps = await emitMaps(ir.maps);
const files = await formatFiles(new Map([["types.ts", types], ...Object.entries(maps)]));
mkdirSync(outDir, { recursive: true });
for (const [path, text] of files) writeFileSync(join(outDir, path), text);

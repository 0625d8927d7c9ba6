import { join } from "node:path";
import { loadSchema } from "./load.js";
import { defaultSchemaUrl, identifySchema, readLock, versionFolder, type SchemaIdentity } from "./verify.js";
import { normalizeSchema } from "./normalize.js";
import { buildIR, type SchemaIR } from "./ir.js";
import { emitTypes } from "./emit-types.js";
import { emitMapsInWorker } from "./emit-maps.js";
import { emitRuntime, readRuntimeTemplates } from "./emit-runtime.js";
import { formatFiles } from "./format.js";
import { generatedHeader } from "./header.js";
import { describeChanges, isFresh, MANIFEST_FILE, readManifest, renderManifest, summarize, templatesSha256, type ManifestInputs } from "./manifest.js";
import { replaceFolder, staleFiles } from "./write.js";
import { generatorVersion, runtimeTemplatesDir } from "./paths.js";

export interface TypesOptions {
  /** Path or http(s) URL; the pinned default revision's URL when absent. */
  schema?: string;
  /** The folder that receives v<yymm>/. */
  out: string;
  check?: boolean;
  protocolVersion?: string;
}

export interface TypesReport {
  identity: SchemaIdentity;
  outDir: string;
  /** Files that differ from what the schema gives (--check), empty when up to date. */
  stale: string[];
  written: boolean;
  runtimeEmitted: boolean;
  changes: string[];
  notes: string[];
}

/** `mcp-gen types`: load, verify, normalize, build the IR, emit, format, write. */
export async function generateTypes(options: TypesOptions): Promise<TypesReport> {
  const lock = readLock();
  const loaded = await loadSchema(options.schema ?? defaultSchemaUrl(lock));
  const identity = identifySchema(loaded, lock, options.protocolVersion);
  const outDir = join(options.out, versionFolder(identity.revision));
  const templates = readRuntimeTemplates(runtimeTemplatesDir);
  const inputs = manifestInputs(identity, templates);
  const report = { identity, outDir, stale: [], written: false, runtimeEmitted: false, changes: [], notes: [] };
  if (options.check && isFresh(outDir, inputs)) return report;

  const ir = buildIR(normalizeSchema(loaded), identity);
  const header = generatedHeader(identity, lock);
  const files = await emitAll(ir, header, templates);
  const runtimeEmitted = ir.maps.subscriptionKinds !== null;
  files.set(MANIFEST_FILE, renderManifest(inputs, files, summarize(ir)));
  if (options.check) return { ...report, stale: staleFiles(outDir, files), notes: ir.notes, runtimeEmitted };

  const changes = describeChanges(readManifest(outDir)?.summary, summarize(ir));
  await replaceFolder(outDir, files);
  return { ...report, written: true, runtimeEmitted, changes, notes: ir.notes };
}

function manifestInputs(identity: SchemaIdentity, templates: ReadonlyMap<string, string>): ManifestInputs {
  return {
    generator: `mcp-gen ${generatorVersion()}`,
    revision: identity.revision,
    schemaSha256: identity.sha256,
    runtimeTemplatesSha256: templatesSha256(templates),
  };
}

/** types.ts here while the maps are built in a worker; then the one formatting pass. */
async function emitAll(ir: SchemaIR, header: string, templates: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const maps = emitMapsInWorker(ir.maps);
  maps.catch(() => undefined); // awaited below; keeps an early failure here from going unhandled
  const runtime = ir.maps.subscriptionKinds === null ? new Map<string, string>() : emitRuntime(templates, header);
  const first = await formatFiles(new Map([["types.ts", header + (await emitTypes(ir))], ...runtime]));
  const mapFiles = await maps;
  const second = await formatFiles(new Map(Object.entries(mapFiles).map(([path, text]) => [path, header + text])));
  return new Map([...first, ...second]);
}

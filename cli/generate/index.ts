import { join } from "node:path";
import { loadSchema } from "./load.js";
import { defaultSchemaUrl, identifySchema, readLock, versionFolder, type SchemaIdentity } from "./verify.js";
import { normalizeSchema } from "./normalize.js";
import { buildIR, type SchemaIR } from "./ir.js";
import { emitTypes } from "./emit-types.js";
import { startSideThread, type SideThread } from "./side-thread.js";
import { emitRuntime, readRuntimeTemplates } from "./emit-runtime.js";
import { formatClaimed, loadFormatter } from "./format.js";
import { generatedHeader } from "./header.js";
import { describeChanges, generatorFingerprint, isFresh, MANIFEST_FILE, readManifest, renderManifest, summarize, templatesSha256, type ManifestInputs, type Summary } from "./manifest.js";
import { replaceFolder, staleFiles } from "./write.js";
import { runtimeTemplatesDir } from "./paths.js";
import { sortedBy } from "./sort.js";

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
  /** What the output holds (types, methods, filter keys, flags); absent when nothing was generated. */
  summary?: Summary;
}

/**
 * `mcp-gen types`: load, verify, (when stale) normalize, build the IR, emit, format, write.
 * `started`: a side thread the caller started early; it is stopped here either way.
 */
export async function generateTypes(options: TypesOptions, started?: SideThread): Promise<TypesReport> {
  // The side thread starts loading ts-morph at once, unless --check may find nothing to do.
  let side = started ?? (options.check ? undefined : startSideThread());
  try {
    const lock = readLock();
    const loaded = await loadSchema(options.schema ?? defaultSchemaUrl(lock));
    const identity = identifySchema(loaded, lock, options.protocolVersion);
    const outDir = join(options.out, versionFolder(identity.revision));
    const templates = readRuntimeTemplates(runtimeTemplatesDir);
    const inputs = manifestInputs(identity, templates);
    const report: TypesReport = { identity, outDir, stale: [], written: false, runtimeEmitted: false, changes: [], notes: [] };
    if (options.check && isFresh(outDir, inputs)) return report;

    side ??= startSideThread();
    const ir = buildIR(normalizeSchema(loaded), identity);
    const files = await emitAll(ir, generatedHeader(identity, lock), templates, side);
    const summary = summarize(ir);
    files.set(MANIFEST_FILE, renderManifest(inputs, files, summary));
    const generated = { ...report, summary, notes: [...new Set(ir.notes)], runtimeEmitted: ir.maps.subscriptionKinds !== null };
    if (options.check) return { ...generated, stale: staleFiles(outDir, files) };

    const changes = describeChanges(readManifest(outDir)?.summary, summary);
    await replaceFolder(outDir, files);
    return { ...generated, written: true, changes };
  } finally {
    await side?.stop();
  }
}

function manifestInputs(identity: SchemaIdentity, templates: ReadonlyMap<string, string>): ManifestInputs {
  return {
    generator: generatorFingerprint(),
    revision: identity.revision,
    schemaSha256: identity.sha256,
    runtimeTemplatesSha256: templatesSha256(templates),
  };
}

/**
 * Two cores: this thread emits and formats types.ts while the side thread builds the maps;
 * both format the runtime files from one shared list; this thread formats the maps, its
 * prettier being warm by then. One prettier pass per file.
 */
async function emitAll(ir: SchemaIR, header: string, templates: ReadonlyMap<string, string>, side: SideThread): Promise<Map<string, string>> {
  const runtime = ir.maps.subscriptionKinds === null ? new Map<string, string>() : emitRuntime(templates, header);
  const shared = [...runtime];
  const next = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const fromSide = side.start({ maps: ir.maps, shared, next });
  const types = header + (await emitTypes(ir));
  const format = await loadFormatter();
  const files: Array<[string, string]> = [["types.ts", await format("types.ts", types)]];
  files.push(...(await formatClaimed(shared, next, format)));
  for (const [path, text] of Object.entries(await fromSide.maps)) files.push([path, await format(path, header + text)]);
  files.push(...(await fromSide.formatted));
  return new Map(sortedBy(files, ([path]) => path));
}

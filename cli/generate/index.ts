import { join } from "node:path";
import { loadSchema } from "./load.js";
import { defaultSchemaUrl, identifySchema, readLock, versionFolder, type SchemaIdentity } from "./verify.js";
import { readRuntimeTemplates } from "./emit-runtime.js";
import { startSideThread, type SideThread } from "./side-thread.js";
import {
  describeChanges,
  generatorFingerprint,
  isFresh,
  MANIFEST_FILE,
  readManifest,
  renderManifest,
  summarize,
  templatesSha256,
  type ManifestInputs,
  type Summary,
} from "./manifest.js";
import { replaceFolder, staleFiles } from "./write.js";
import { runtimeTemplatesDir } from "./paths.js";

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

    // The stages that make the output load only now: a check of fresh output never pays for them.
    const { normalizeSchema, buildIR, generatedHeader, emitAll } = await import("./stages.js");
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

import { join } from "node:path";
import { CliError } from "../errors.js";
import { loadSchema, type LoadedSchema } from "./load.js";
import { checkRevisionName, defaultSchemaUrl, identifySchema, readLock, versionFolder, type Lock, type SchemaIdentity } from "./verify.js";
import { noLegacyRevision, readRuntimeSource } from "./emit-runtime.js";
import { legacyFoldersOf } from "./import-point.js";
import { readProjectConfig } from "../toolbox/project-config.js";
import {
  describeChanges,
  generatorIdentity,
  staleAgainstManifest,
  MANIFEST_FILE,
  readManifest,
  renderManifest,
  runtimeSourceSha256,
  summarize,
  type ManifestInputs,
  type RuntimeInputs,
  type RuntimePlacement,
  type Summary,
} from "./manifest.js";
import { packageRoot, runtimeSourceDir } from "./paths.js";
import type { LoadedExtension } from "./extend.js";

export interface TypesOptions {
  /** Path or http(s) URL; the pinned default revision's URL when absent. */
  schema?: string;
  /** That schema already read (a project identifies it before generating): it is not read again, a URL not downloaded twice. */
  loaded?: LoadedSchema;
  /** The folder that receives v<yymm>/. */
  out: string;
  check?: boolean;
  protocolVersion?: string;
  /**
   * Extension schemas merged into the core one before normalisation (`--extension`, repeatable):
   * a known name such as `io.modelcontextprotocol/tasks` (mcp-gen's own schema), else a file path.
   */
  extensions?: string[];
  /** Where a package named in `extensions` is looked up from (its node_modules, upwards): the project; else the current folder. */
  extensionsFrom?: string;
  /**
   * The sibling folders whose facts an emitted runtime serves `initialize` clients with,
   * newest first (default: the initialize-era revisions this package ships, see
   * shippedLegacyFolders); empty when the project lists none, which makes a revision with
   * a runtime an error.
   */
  legacyFolders?: readonly string[];
  /**
   * Where the runtime of a revision that has one lives (default `beside`: a copy written in
   * its runtime/ folder). `kept`: where the project's "mcp-gen.runtime" says; `none`:
   * `--types-only`. Neither writes a copy or needs a legacy folder. Recorded in the manifest's
   * inputs for a revision a runtime serves.
   */
  runtime?: RuntimePlacement;
}

export interface TypesReport {
  identity: SchemaIdentity;
  outDir: string;
  /** Files that differ from what the schema gives (--check), empty when up to date. */
  stale: string[];
  written: boolean;
  runtimeEmitted: boolean;
  /** Where the runtime serving the revision lives; absent when none serves it (no listen stream). */
  runtime?: RuntimePlacement;
  changes: string[];
  notes: string[];
  /** What the output holds (types, methods, filter keys, flags); absent when nothing was generated. */
  summary?: Summary;
}

/** What every revision of one run reads alike: the lock, the runtime source (and its hash), the generator identity. */
export interface RunInputs {
  lock: Lock;
  runtimeSource: ReadonlyMap<string, string>;
  runtimeSourceSha256: string;
  generator: string;
}

/** Reads the run's shared inputs; a project reads them once for all its revisions. */
export function readRunInputs(): RunInputs {
  const runtimeSource = readRuntimeSource(runtimeSourceDir);
  return { lock: readLock(), runtimeSource, runtimeSourceSha256: runtimeSourceSha256(runtimeSource), generator: generatorIdentity() };
}

/**
 * `mcp-gen types`, as a table of contents:
 * 1. check the requested revision name, read the lock, load the schema (file or bounded download);
 * 2. identify it (pinned by hash, or named) and so the output folder; load the extensions;
 * 3. `--check`: when the manifest there says the output was made from these inputs, its
 *    hashes tell which files changed: done, having loaded none of the code-generation stages;
 * 4. make the output (make.ts: normalize, IR, emit, format) and its manifest;
 * 5. `--check`: list the stale files; otherwise swap the new folder in whole.
 */
export async function generateTypes(options: TypesOptions, run: RunInputs = readRunInputs()): Promise<TypesReport> {
  const { lock, runtimeSource } = run;
  const requested = options.protocolVersion === undefined ? undefined : checkRevisionName(options.protocolVersion, lock);
  const loaded = options.loaded ?? (await loadSchema(options.schema ?? defaultSchemaUrl(lock)));
  const identity = identifySchema(loaded, lock, requested);
  const outDir = join(options.out, versionFolder(identity.revision));
  const extensions = await extensionsOf(options.extensions, options.extensionsFrom);
  const placement = options.runtime ?? "beside";
  const noRuntime = placement !== "beside";
  const legacyFolders = noRuntime ? [] : (options.legacyFolders ?? shippedLegacyFolders());
  const inputs = manifestInputs(identity, run, extensions);
  const runtimeInputs = noRuntime ? undefined : runtimeInputsOf(run, legacyFolders);
  const report: TypesReport = { identity, outDir, stale: [], written: false, runtimeEmitted: false, changes: [], notes: [] };
  if (options.check) {
    const stale = staleAgainstManifest(outDir, inputs, runtimeInputs, placement);
    if (stale !== undefined) return { ...report, stale };
  }

  // Only now load the stages that make output, and through them the code-generation libraries.
  const { makeOutput } = await import("./make.js");
  const { files, ir } = await makeOutput(loaded, identity, lock, runtimeSource, extensions, legacyFolders, noRuntime);
  const withRuntime = ir.withRuntime && !noRuntime;
  if (withRuntime && legacyFolders.length === 0) throw noLegacyRevision(identity.revision);
  if (withRuntime && runtimeSource.size === 0) {
    throw new CliError(`${identity.revision} is served by a runtime, and mcp-gen's runtime source (${runtimeSourceDir}) holds none`, {
      hint: "reinstall mcp-gen: its package carries packages/runtime/src",
    });
  }
  const summary = summarize(ir);
  const runtime = ir.withRuntime ? placement : undefined;
  const recorded = runtime === undefined ? inputs : { ...inputs, runtime, ...runtimeInputs };
  files.set(MANIFEST_FILE, renderManifest(recorded, files, summary));
  const made = { ...report, summary, notes: [...new Set(ir.notes)], runtimeEmitted: withRuntime, runtime };
  const { replaceFolder, staleFiles } = await import("./write.js");
  if (options.check) return { ...made, stale: staleFiles(outDir, files) };

  const changes = describeChanges(readManifest(outDir)?.summary, summary);
  await replaceFolder(outDir, files);
  return { ...made, written: true, changes };
}

/**
 * `--check` of a pinned revision without reading its schema: the lock's sha256 stands for the
 * pinned bytes (a download is checked against it anyway), so the manifest tells the stale
 * files (none when fresh) with no network. Undefined when only a regeneration can tell.
 */
export async function pinnedOutputStale(
  out: string,
  revision: string,
  legacyFolders: readonly string[],
  extensions: readonly string[] = [],
  run: RunInputs = readRunInputs(),
  placement: RuntimePlacement = "beside",
  extensionsFrom?: string,
): Promise<string[] | undefined> {
  const pin = run.lock.revisions[revision];
  if (!pin) return undefined;
  const identity: SchemaIdentity = { revision, sha256: pin.sha256, pinned: true };
  const inputs = manifestInputs(identity, run, await extensionsOf(extensions, extensionsFrom));
  const runtime = placement === "beside" ? runtimeInputsOf(run, legacyFolders) : undefined;
  return staleAgainstManifest(join(out, versionFolder(revision)), inputs, runtime, placement);
}

/** The extensions given, loaded; their loader (and the package lookup it brings) is imported only when there are some. */
async function extensionsOf(given: readonly string[] | undefined, from: string | undefined): Promise<LoadedExtension[]> {
  if (given === undefined || given.length === 0) return [];
  const { loadExtensions } = await import("./extend.js");
  return loadExtensions(given, from);
}

/** What an output with a runtime adds to its inputs; none without a legacy folder to bind (then a runtime is refused). */
function runtimeInputsOf(run: RunInputs, legacyFolders: readonly string[]): RuntimeInputs | undefined {
  return legacyFolders.length === 0 ? undefined : { runtimeSourceSha256: run.runtimeSourceSha256, legacyFolders: [...legacyFolders] };
}

/** Outside a project: the initialize-era revisions this package ships under generated/ (its own package.json list), newest first. */
export function shippedLegacyFolders(): string[] {
  const config = readProjectConfig(packageRoot);
  return config === undefined ? [] : legacyFoldersOf(config.revisions, join(packageRoot, config.out));
}

/** What identifies an output: never the generator's own source text (see generatorIdentity). */
function manifestInputs(identity: SchemaIdentity, run: RunInputs, extensions: readonly LoadedExtension[]): ManifestInputs {
  const inputs: ManifestInputs = { generator: run.generator, revision: identity.revision, schemaSha256: identity.sha256 };
  // Listed only when given, so output made without extensions keeps its manifest.
  if (extensions.length > 0) inputs.extensions = extensions.map((extension) => ({ id: extension.id, sha256: extension.schema.sha256 }));
  return inputs;
}

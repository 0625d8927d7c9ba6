import { existsSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { CliError } from "../errors.js";
import { isRuntimeFolder, readProjectConfig, withRevision, writeProjectConfig, type ProjectConfig } from "../toolbox/project-config.js";
import { writeFilesAtomically } from "../toolbox/write.js";
import { generateTypes, pinnedOutputStale, readRunInputs, type TypesReport } from "./index.js";
import { isUrl, loadSchema, type LoadedSchema } from "./load.js";
import { pinnedCopy } from "./pinned-copies.js";
import { describeChanges, MANIFEST_FILE, manifestInCurrentForm, readManifest, runtimePlacement, type RuntimePlacement } from "./manifest.js";
import {
  assertImportPointOurs,
  IMPORT_POINT_FILE,
  importPointUpToDate,
  legacyFoldersOf as legacyFoldersIn,
  readEras,
  renderImportPoint,
  runtimeEntriesAt,
  writeImportPoint,
  type RuntimeEntries,
} from "./import-point.js";
import { packageRoot } from "./paths.js";
import { identifySchema, versionFolder, type Lock } from "./verify.js";

/** What `mcp-gen types` did in a project: one report per revision, and the import point. */
export interface ProjectReport {
  reports: TypesReport[];
  /** <out>/index.ts: written, up to date, stale (--check), or absent because no listed revision has a runtime. */
  importPoint: "written" | "fresh" | "stale" | "none";
  importPointPath: string;
  /** Set when a --schema added a revision to (or replaced one in) the list. */
  added?: { revision: string; listedBefore: boolean; comparedWith?: string; changes: string[] };
}

/**
 * Where a listed revision's schema is read from: the location the config records for it (a
 * revision the lock does not pin), else `$MCP_SCHEMAS_DIR/<revision>/schema.json` when that
 * variable is set, else the copy a built mcp-gen carries (pinned-copies.ts), else the lock's
 * pinned URL (its bytes checked against the pinned sha256).
 */
export function schemaSource(revision: string, config: ProjectConfig, projectDir: string, lock: Lock, env = process.env): string {
  const recorded = config.schemas[revision];
  if (recorded !== undefined) return isUrl(recorded) ? recorded : resolve(projectDir, recorded);
  if (env.MCP_SCHEMAS_DIR) return join(env.MCP_SCHEMAS_DIR, revision, "schema.json");
  const pin = lock.revisions[revision];
  if (pin) return pinnedCopy(revision, lock) ?? pin.url;
  throw new CliError(`revision ${revision} has no schema: schemas/lock.json does not pin it and "mcp-gen.schemas" does not name one`, {
    hint: `add it with \`mcp-gen types --schema <file or URL> --protocol-version ${revision}\``,
  });
}

/** The folders an emitted runtime of the project binds for `initialize` clients, newest first (import-point.ts). */
export function legacyFoldersOf(config: ProjectConfig, outDir: string, except?: string): string[] {
  return legacyFoldersIn(config.revisions, outDir, except);
}

/** `mcp-gen types` (no --schema) in a project: each listed revision, oldest first, then the import point. */
export async function regenerateProject(projectDir: string, config: ProjectConfig, check: boolean, typesOnly = false): Promise<ProjectReport> {
  const run = readRunInputs();
  const { lock } = run;
  const outDir = resolve(projectDir, config.out);
  assertImportPointOurs(outDir);
  assertKeptRuntime(projectDir, config);
  const kept = revisionsKeptRuntimeServes(config);
  const placement = (revision: string) => placementFor(kept, revision, typesOnly);
  const sources = new Map(config.revisions.map((revision) => [revision, schemaSource(revision, config, projectDir, lock)]));
  // A pinned revision whose manifest says its output is made from these inputs needs no schema:
  // the lock's sha256 stands for the pinned bytes, so a regeneration would write the same files.
  // A project whose folders came from mcp-gen's own copies thus regenerates with no network.
  const fresh = new Map<string, string[]>();
  for (const revision of config.revisions) {
    const pinnedUrl = lock.revisions[revision]?.url === sources.get(revision);
    const manifestTells = check ? pinnedUrl : Object.hasOwn(lock.revisions, revision) && config.schemas[revision] === undefined;
    if (!manifestTells) continue;
    const legacyFolders = legacyFoldersOf(config, outDir, revision);
    const stale = await pinnedOutputStale(
      outDir,
      revision,
      legacyFolders,
      config.extensions[revision],
      run,
      placement(revision),
      projectDir,
    );
    // --check reports the stale files it names; a regeneration makes them.
    if (stale !== undefined && (check || stale.length === 0)) fresh.set(revision, stale);
  }
  // Every schema still needed is located before any folder is replaced, so a missing one changes nothing.
  const missing = [...sources].find(([revision, location]) => !fresh.has(revision) && !isUrl(location) && !existsSync(location));
  if (missing) {
    throw new CliError(`schema file not found for ${missing[0]}: ${missing[1]}`, {
      hint: config.schemas[missing[0]]
        ? `fix "mcp-gen.schemas.${missing[0]}" in package.json`
        : "put it there, or unset MCP_SCHEMAS_DIR to download the pinned revision",
    });
  }
  const reports: TypesReport[] = [];
  for (const revision of config.revisions) {
    const stale = fresh.get(revision);
    if (stale !== undefined) {
      reports.push(checkedByManifest(outDir, revision, lock, stale, check));
      continue;
    }
    const schema = sources.get(revision)!;
    const loaded = lock.revisions[revision]?.url === schema ? await downloadPinned(revision, schema) : undefined;
    reports.push(
      await generateTypes(
        {
          schema,
          loaded,
          protocolVersion: revision,
          out: outDir,
          check,
          extensions: config.extensions[revision],
          extensionsFrom: projectDir,
          legacyFolders: legacyFoldersOf(config, outDir, revision),
          runtime: placement(revision),
        },
        run,
      ),
    );
  }
  return { reports, importPoint: finishImportPoint(config, projectDir, check), importPointPath: join(outDir, IMPORT_POINT_FILE) };
}

/**
 * A pinned schema downloaded; when that fails, the way to go without the network is named:
 * a regeneration takes no --schema for a listed revision, $MCP_SCHEMAS_DIR serves them all.
 */
async function downloadPinned(revision: string, url: string): Promise<LoadedSchema> {
  try {
    return await loadSchema(url);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    throw new CliError(error.message, {
      hint: `set MCP_SCHEMAS_DIR to a folder holding ${revision}/schema.json (the file schemas/lock.json pins), or check the network`,
    });
  }
}

/**
 * The report of a pinned revision checked by its manifest, without reading its schema. A
 * regeneration rewrites a manifest the previous release wrote (`typesOnly`, `runtimeKept`) in
 * the current form, the output's files as they are.
 */
function checkedByManifest(outDir: string, revision: string, lock: Lock, stale: string[], check: boolean): TypesReport {
  const identity = { revision, sha256: lock.revisions[revision]!.sha256, pinned: true };
  const dir = join(outDir, versionFolder(revision));
  const manifest = readManifest(dir)!;
  const report = { identity, outDir: dir, stale, written: false, runtimeEmitted: false, runtime: runtimePlacement(manifest), changes: [], notes: [] };
  const current = check ? undefined : manifestInCurrentForm(manifest);
  if (current === undefined) return report;
  writeFilesAtomically(dir, [{ path: MANIFEST_FILE, content: current }]);
  return { ...report, written: true, notes: [`${MANIFEST_FILE} rewritten in this release's form (where the runtime lives is its "runtime" input)`] };
}

/**
 * `mcp-gen types --schema <file|url>` in a project: generates that revision beside the others,
 * lists it in package.json (recording where an unpinned schema lives, relative to the
 * project), and rewrites the import point.
 */
export async function addRevision(
  projectDir: string,
  config: ProjectConfig,
  schema: string,
  protocolVersion: string | undefined,
  check: boolean,
  extensions?: string[],
  typesOnly = false,
): Promise<ProjectReport> {
  const outDir = resolve(projectDir, config.out);
  assertImportPointOurs(outDir);
  assertKeptRuntime(projectDir, config);
  // The config's entries are keyed by revision: a schema given without one is identified
  // first, and the generator is handed what was read (a URL is downloaded once).
  const run = readRunInputs();
  const loaded = protocolVersion === undefined ? await loadSchema(schema) : undefined;
  const named = protocolVersion ?? identifySchema(loaded!, run.lock).revision;
  // A revision new to the list keeps the extensions of the newest one before it (a spec
  // update keeps what the project uses); --extension chooses others.
  const inherited = config.revisions.includes(named) ? undefined : config.extensions[config.revisions.at(-1) ?? ""];
  const chosen = extensions ?? config.extensions[named] ?? inherited;
  const report = await generateTypes(
    {
      schema,
      loaded,
      protocolVersion,
      out: outDir,
      check,
      extensions: chosen,
      extensionsFrom: projectDir,
      legacyFolders: legacyFoldersOf(config, outDir, named),
      runtime: placementFor(revisionsKeptRuntimeServes(config, [named]), named, typesOnly),
    },
    run,
  );
  const { revision, pinned } = report.identity;
  const listedBefore = config.revisions.includes(revision);
  const added = { revision, listedBefore, ...changesAgainstNewest(config, outDir, report) };
  const importPointPath = join(outDir, IMPORT_POINT_FILE);
  if (check) return { reports: [report], importPoint: finishImportPoint(config, projectDir, true), importPointPath, added };
  const location = pinned ? undefined : isUrl(schema) ? schema : projectPath(projectDir, schema);
  const next = withRevision(config, revision, location, chosen);
  writeProjectConfig(projectDir, next);
  return { reports: [report], importPoint: finishImportPoint(next, projectDir, false), importPointPath, added };
}

/**
 * What a revision new to the list brings, against the newest revision listed before it
 * (a replaced revision's own change report is in its TypesReport).
 */
function changesAgainstNewest(config: ProjectConfig, outDir: string, report: TypesReport): { comparedWith?: string; changes: string[] } {
  const { revision } = report.identity;
  if (config.revisions.includes(revision) || !report.summary) return { changes: [] };
  const previous = config.revisions.filter((listed) => listed !== revision).at(-1);
  const summary = previous === undefined ? undefined : readManifest(join(outDir, versionFolder(previous)))?.summary;
  return summary ? { comparedWith: previous, changes: describeChanges(summary, report.summary) } : { changes: [] };
}

/** A schema path as the config records it: relative to the project when inside it. */
function projectPath(projectDir: string, path: string): string {
  const absolute = resolve(path);
  const inside = relative(projectDir, absolute);
  return inside.startsWith("..") || isAbsolute(inside) ? absolute : inside.split("\\").join("/");
}

/**
 * The revisions (the listed ones, or `revisions`) the runtime the project keeps
 * ("mcp-gen.runtime") serves, so none is written beside them: a folder of runtime source
 * serves every one (it binds the project's facts); the runtime package only a revision this
 * package ships as the package is built on (its own generated/, kept, with the same
 * extensions); any other gets a copy bound to its facts. Worked out once per run: it reads
 * mcp-gen's own package.json and a manifest per revision.
 */
export function revisionsKeptRuntimeServes(config: ProjectConfig, revisions: readonly string[] = config.revisions): ReadonlySet<string> {
  if (config.runtime === undefined) return new Set();
  if (isRuntimeFolder(config.runtime)) return new Set(revisions);
  const own = readProjectConfig(packageRoot);
  if (own === undefined) return new Set();
  const sameExtensions = (revision: string) => JSON.stringify(config.extensions[revision] ?? []) === JSON.stringify(own.extensions[revision] ?? []);
  const keptInPackage = (revision: string) => {
    const shipped = readManifest(join(packageRoot, own.out, versionFolder(revision)));
    return shipped !== undefined && runtimePlacement(shipped) === "kept";
  };
  return new Set(revisions.filter((revision) => config.schemas[revision] === undefined && sameExtensions(revision) && keptInPackage(revision)));
}

/** Where a revision's runtime lives: the project's kept runtime when it serves it (--types-only changes nothing then), else a copy beside it unless --types-only. */
function placementFor(kept: ReadonlySet<string>, revision: string, typesOnly: boolean): RuntimePlacement {
  return kept.has(revision) ? "kept" : typesOnly ? "none" : "beside";
}

/** The entries of the runtime the project keeps ("mcp-gen.runtime"), as the import point names them. */
export function keptRuntimeEntries(config: ProjectConfig, projectDir: string): RuntimeEntries | undefined {
  if (config.runtime === undefined) return undefined;
  if (!isRuntimeFolder(config.runtime)) return runtimeEntriesAt(config.runtime, false);
  const path = relative(resolve(projectDir, config.out), resolve(projectDir, config.runtime)).split("\\").join("/");
  return runtimeEntriesAt(path.startsWith(".") ? path : `./${path}`, true);
}

/** Refuses, before anything is generated, a "mcp-gen.runtime" folder with no runtime in it. */
function assertKeptRuntime(projectDir: string, config: ProjectConfig): void {
  if (config.runtime === undefined || !isRuntimeFolder(config.runtime) || existsSync(join(projectDir, config.runtime, "index.ts"))) return;
  throw new CliError(`package.json: "mcp-gen.runtime" names ${config.runtime}, which holds no index.ts`, {
    hint: "point it at the folder of the runtime's source, or remove the key to have the runtime written beside the revision",
  });
}

function finishImportPoint(config: ProjectConfig, projectDir: string, check: boolean): ProjectReport["importPoint"] {
  const outDir = resolve(projectDir, config.out);
  const text = renderImportPoint(readEras(config.revisions, outDir), keptRuntimeEntries(config, projectDir));
  if (text === undefined) return "none";
  if (check) return importPointUpToDate(outDir, text) ? "fresh" : "stale";
  return writeImportPoint(outDir, text) ? "written" : "fresh";
}

/** The project config of the folder `mcp-gen types` runs in, when it applies to this `--out`. */
export function projectFor(dir: string, out: string | undefined): ProjectConfig | undefined {
  const config = readProjectConfig(dir);
  if (!config || (out !== undefined && resolve(dir, out) !== resolve(dir, config.out))) return undefined;
  return config;
}

export { IMPORT_POINT_FILE };

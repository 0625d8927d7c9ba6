import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CliError } from "../errors.js";
import { noLegacyRevision, withEmittedRuntime } from "../generate/emit-runtime.js";
import { generateTypes, readRunInputs } from "../generate/index.js";
import { readEras, renderImportPoint } from "../generate/import-point.js";
import { readManifest, RUNTIME_ENTRY, runtimePlacement, type Manifest } from "../generate/manifest.js";
import { keptRuntimeEntries, legacyFoldersOf, revisionsKeptRuntimeServes, schemaSource } from "../generate/project.js";
import { readLock, versionFolder } from "../generate/verify.js";
import { listFiles } from "../toolbox/files.js";
import { packageRoot } from "../toolbox/package.js";
import { parseProjectConfig, readProjectConfig, type ProjectConfig } from "../toolbox/project-config.js";
import { writeFilesAtomically, type PlannedFile } from "../toolbox/write.js";
import { runtimePackage } from "./package-root.js";

/** This package's own revision list (its package.json "mcp-gen"): what its generated/ holds. */
function packageConfig(): ProjectConfig {
  const config = readProjectConfig(packageRoot());
  if (!config) throw new Error(`${packageRoot()}/package.json has no "mcp-gen" revision list`);
  return config;
}

/** What a new project serves unless `--revisions` says otherwise: every revision this package generates. */
export const DEFAULT_REVISIONS: readonly string[] = packageConfig().revisions;

/**
 * A new project's config for `revisions`, checked as `mcp-gen types` checks package.json,
 * with each revision one the lock pins (a project adds others later with `mcp-gen types`).
 */
export function projectConfigFor(revisions: readonly string[], out: string): ProjectConfig {
  const config = parseProjectConfig({ out, revisions: [...revisions], runtime: runtimePackage().name }, "--revisions");
  // The extensions this package's own generated/ was made with, for the revisions listed.
  const shipped = packageConfig().extensions;
  for (const revision of config.revisions) if (shipped[revision]) config.extensions[revision] = [...shipped[revision]];
  const lock = readLock();
  const unpinned = config.revisions.find((revision) => !Object.hasOwn(lock.revisions, revision));
  if (unpinned !== undefined) {
    throw new CliError(`--revisions: ${unpinned} is not a revision schemas/lock.json pins`, {
      hint: `choose from ${Object.keys(lock.revisions).join(", ")}; add others after creating with \`npx mcp-gen types --schema <file> --protocol-version <rev>\``,
      exitCode: 2,
    });
  }
  return config;
}

/**
 * The generated folders of a new project and its import point. A revision this package ships
 * under generated/ is copied; the one a runtime serves gets the runtime written beside it
 * (this package keeps its own in packages/runtime/src), bound to the legacy revisions the list
 * gives. Any other is generated here, from `$MCP_SCHEMAS_DIR` or the pinned URL, before
 * anything of the project is written.
 */
export async function planGenerated(packageRoot: string, config: ProjectConfig): Promise<PlannedFile[]> {
  const shipped = join(packageRoot, "generated");
  const kept = revisionsKeptRuntimeServes(config);
  // The common case (every listed folder ships as the project needs it) reads them where they
  // are; only a folder to generate needs the temp copy, which costs a copy, a read and a removal.
  if (config.revisions.every((revision) => usableAsIs(config, kept, shipped, revision))) return plannedFrom(shipped, config);
  const work = mkdtempSync(join(tmpdir(), "mcp-gen-create-"));
  try {
    const lock = readLock();
    for (const revision of config.revisions) {
      const folder = versionFolder(revision);
      if (existsSync(join(shipped, folder))) cpSync(join(shipped, folder), join(work, folder), { recursive: true });
    }
    for (const revision of config.revisions) {
      if (usableAsIs(config, kept, work, revision)) continue;
      const folder = versionFolder(revision);
      const legacyFolders = legacyFoldersOf(config, work, revision);
      const manifest = readManifest(join(work, folder));
      if (manifest !== undefined && needsRuntime(manifest) && legacyFolders.length === 0) throw noLegacyRevision(revision);
      if (manifest !== undefined && runtimePlacement(manifest) === "kept" && !kept.has(revision)) {
        addRuntime(join(work, folder), manifest, legacyFolders);
        continue;
      }
      rmSync(join(work, folder), { recursive: true, force: true });
      const schema = schemaSource(revision, config, work, lock);
      await generateTypes({ schema, protocolVersion: revision, out: work, legacyFolders, extensions: config.extensions[revision] });
    }
    return plannedFrom(work, config);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * A revision's folder in `dir` as the project can take it: present, with no runtime to add (this
 * package keeps its own, a project gets a copy), and a runtime bound to the legacy folders the
 * project lists. `kept`: the revisions the project's kept runtime serves, worked out once.
 */
function usableAsIs(config: ProjectConfig, kept: ReadonlySet<string>, dir: string, revision: string): boolean {
  const manifest = readManifest(join(dir, versionFolder(revision)));
  if (manifest === undefined || (runtimePlacement(manifest) === "kept") !== kept.has(revision)) return false;
  return !(RUNTIME_ENTRY in manifest.outputs) || sameList(manifest.inputs.legacyFolders, legacyFoldersOf(config, dir, revision));
}

function needsRuntime(manifest: Manifest): boolean {
  const runtime = runtimePlacement(manifest);
  return runtime === "beside" || runtime === "kept";
}

/** Writes the runtime beside a kept-runtime output in the work folder, as `mcp-gen types` would have made it there. */
function addRuntime(folder: string, manifest: Manifest, legacyFolders: readonly string[]): void {
  const output = new Map(listFiles(folder).map((path) => [path, readFileSync(join(folder, path), "utf8")]));
  const run = readRunInputs();
  const files = withEmittedRuntime(output, manifest, { source: run.runtimeSource, sha256: run.runtimeSourceSha256 }, legacyFolders);
  writeFilesAtomically(
    folder,
    [...files].map(([path, content]) => ({ path, content })),
  );
}

/** The listed revisions' folders in `dir`, and the import point over them, as the project's files. */
function plannedFrom(dir: string, config: ProjectConfig): PlannedFile[] {
  const eras = readEras(config.revisions, dir);
  // The runtime answers `initialize` clients with the facts of an initialize-era revision the project lists.
  const newest = eras.filter((entry) => entry.era === "listen").at(-1);
  if (newest !== undefined && !eras.some((entry) => entry.era === "initialize")) throw noLegacyRevision(newest.revision);
  const index = renderImportPoint(eras, keptRuntimeEntries(config, dir));
  if (index === undefined) {
    throw new CliError(`--revisions ${config.revisions.join(",")} lists no revision with a runtime`, {
      hint: `add ${DEFAULT_REVISIONS.at(-1)}`,
      exitCode: 2,
    });
  }
  const paths = config.revisions.flatMap((revision) => listFiles(join(dir, versionFolder(revision)), `${versionFolder(revision)}/`));
  const files = paths.map((path) => ({ path: `${config.out}/${path}`, content: readFileSync(join(dir, path), "utf8") }));
  return [...files, ...[...index].map(([path, content]) => ({ path: `${config.out}/${path}`, content }))];
}

function sameList(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return a !== undefined && a.length === b.length && a.every((item, index) => item === b[index]);
}

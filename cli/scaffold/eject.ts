/**
 * `mcp-gen eject runtime`: the runtime's source copied into the project, for those who want
 * it in their tree or must change it (an unpinned draft that needs other runtime code).
 * package.json's "mcp-gen.runtime" then names that folder instead of the runtime package, the
 * dependency on the package goes, and the import point re-exports the folder. From then on
 * the folder is the project's own: `mcp-gen types` binds it to the project's facts and never
 * writes it again.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { CliError } from "../errors.js";
import { readRuntimeSource } from "../generate/emit-runtime.js";
import { readEras, renderImportPoint } from "../generate/import-point.js";
import { runtimeSourceDir } from "../generate/paths.js";
import { keptRuntimeEntries } from "../generate/project.js";
import { withoutJsonValue } from "../toolbox/json-text.js";
import type { PackageManifest } from "../toolbox/package.js";
import { isRuntimeFolder, readProjectConfig, renderConfig, withConfigText, type ProjectConfig } from "../toolbox/project-config.js";
import { writeFilesAtomically, type PlannedFile } from "../toolbox/write.js";
import type { ApplyResult } from "./apply.js";

/** Where the runtime's source goes: inside src/, which the project's tsconfig compiles. */
export const EJECTED_FOLDER = "src/runtime";

export interface EjectResult extends ApplyResult {
  /** What the user may tidy by hand: files eject does not delete. */
  notes: string[];
}

export function ejectRuntime(options: { project: string; dryRun: boolean }): EjectResult {
  const root = options.project;
  const config = ejectableConfig(root);
  const next: ProjectConfig = { ...config, runtime: `./${EJECTED_FOLDER}` };
  const copied = [...readRuntimeSource(runtimeSourceDir)].map(([path, text]) => {
    const inFolder = path.slice("runtime/".length);
    return { path: `${EJECTED_FOLDER}/${inFolder}`, content: rebound(text, posix.join(EJECTED_FOLDER, posix.dirname(inFolder)), config.out) };
  });
  const { text: packageJson, notes } = packageJsonWithout(root, config.runtime!, next);
  const importPoint = renderImportPoint(readEras(next.revisions, join(root, next.out)), keptRuntimeEntries(next, root));
  if (importPoint === undefined) throw new CliError("no revision the project lists has a runtime", { hint: "run `npx mcp-gen types` first" });
  const edited: PlannedFile[] = [
    { path: "package.json", content: packageJson },
    ...[...importPoint].map(([path, content]) => ({ path: posix.join(next.out, path), content })),
  ].filter((file) => readFileSync(join(root, file.path), "utf8") !== file.content);
  if (!options.dryRun) writeFilesAtomically(root, [...copied, ...edited]);
  return { created: copied.map((file) => file.path), edited: edited.map((file) => file.path), dryRun: options.dryRun, notes };
}

/** The project's config, when its runtime is a package eject can replace by a folder. */
function ejectableConfig(root: string): ProjectConfig {
  const config = readProjectConfig(root);
  if (config?.runtime === undefined || isRuntimeFolder(config.runtime)) {
    const where = config?.runtime ?? "copies beside its revisions in generated/";
    throw new CliError(`the project's runtime is already in its tree (${where}), not a package to eject`, {
      hint: 'eject applies to a project whose package.json "mcp-gen.runtime" names the runtime package',
    });
  }
  if (existsSync(join(root, EJECTED_FOLDER))) {
    throw new CliError(`${join(root, EJECTED_FOLDER)} exists; eject writes the runtime's source there and replaces nothing`, {
      hint: "move that folder away, then run this again",
    });
  }
  return config;
}

/**
 * A runtime source file with its binding to this repository's facts (generated/facts.ts,
 * legacy-facts.ts: protocol.ts, legacy/protocol.ts, legacy/revisions.ts) pointed at the
 * project's own `out` folder instead; every other file is copied as it is.
 */
function rebound(text: string, folder: string, out: string): string {
  return text.replace(/from "(?:\.\.\/)+generated\/(facts|legacy-facts)\.js"/g, (_whole, file: string) => {
    const path = posix.relative(folder, posix.join(out, `${file}.js`));
    return `from "${path.startsWith(".") ? path : `./${path}`}"`;
  });
}

/**
 * package.json with the config naming the folder and without the dependency on the package,
 * the rest of the file byte for byte; refused in one line, before anything is written, when
 * the file cannot be edited in place.
 */
function packageJsonWithout(root: string, dependency: string, next: ProjectConfig): { text: string; notes: string[] } {
  const original = readFileSync(join(root, "package.json"), "utf8");
  const spec = (JSON.parse(original) as PackageManifest).dependencies?.[dependency];
  const notes = spec?.startsWith("file:") ? [`${spec.slice("file:".length)} (the runtime package's tarball) is no longer needed`] : [];
  const text = withoutJsonValue(withConfigText(original, renderConfig(next)), ["dependencies", dependency], "package.json");
  return { text, notes };
}

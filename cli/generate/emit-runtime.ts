import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../errors.js";
import { listFiles } from "../toolbox/files.js";
import { currentInputs, MANIFEST_FILE, renderManifest, runtimePlacement, type Manifest } from "./manifest.js";

/**
 * The runtime's TypeScript modules, as they are under packages/runtime/src/, keyed by their
 * path inside the output (runtime/<file>); the folders' READMEs stay where they are. The
 * modules reach the revision's facts through one module, runtime/protocol.ts, which the
 * emitter writes anew (see BINDING_FILE).
 */
export function readRuntimeSource(dir: string): Map<string, string> {
  const modules = listFiles(dir).filter((path) => path.endsWith(".ts"));
  return new Map(modules.map((path) => [`runtime/${path}`, readFileSync(join(dir, path), "utf8")]));
}

/** The binding module: in the source it points at this repository's pinned revision. */
export const BINDING_FILE = "runtime/protocol.ts";

/** Beside an emitted runtime, the binding points at the files generated next to it. */
const BINDING = `/** The facts of the protocol revision this runtime was generated for (see packages/runtime/src/protocol.ts). */
export * from "../types.js";
export * from "../methods.js";
export * from "../capabilities.js";
export * from "../shapes.js";
`;

/** The legacy type binding: the newest initialize-era revision's facts, generated into a sibling folder beside the revision's own. */
export const LEGACY_BINDING_FILE = "runtime/legacy/protocol.ts";
/** The legacy revisions binding: the shapes of every initialize-era revision served, one sibling folder each. */
export const LEGACY_REVISIONS_FILE = "runtime/legacy/revisions.ts";
/** A runtime with nothing to bind: the project lists no initialize-era revision. */
export function noLegacyRevision(revision: string): CliError {
  return new CliError(`${revision} has a runtime, which serves initialize clients from an initialize-era revision, and the project lists none`, {
    hint: 'add one to "mcp-gen.revisions" in package.json (or --revisions), e.g. 2025-11-25',
  });
}

/** `legacy/revisions.ts` bound to the sibling folders, newest first (see packages/runtime/src/legacy/revisions.ts). */
function revisionsBinding(folders: readonly string[]): string {
  const imports = folders.map((folder) => `import * as ${folder.replace(/\W/g, "_")} from "../../../${folder}/shapes.js";\n`).join("");
  return `/** The shapes of the initialize-era revisions this runtime serves, newest first (see packages/runtime/src/legacy/revisions.ts). */
${imports}
export const LEGACY_REVISIONS = [${folders.map((folder) => folder.replace(/\W/g, "_")).join(", ")}];
`;
}

function legacyBinding(folder: string): string {
  return `/** The facts of the legacy revision, generated into the sibling folder ${folder}/ (see packages/runtime/src/legacy/protocol.ts). */
export * from "../../../${folder}/types.js";
export * from "../../../${folder}/methods.js";
export * from "../../../${folder}/capabilities.js";
`;
}

/**
 * Every TypeScript source is emitted as the generated header plus its bytes (the sources are
 * kept formatted as emitted, so no formatter runs here), other files verbatim; the binding
 * modules are replaced.
 */
export function emitRuntime(source: ReadonlyMap<string, string>, header: string, legacyFolders: readonly string[]): Map<string, string> {
  const bindings = new Map([
    [BINDING_FILE, BINDING],
    [LEGACY_BINDING_FILE, legacyBinding(legacyFolders[0]!)],
    [LEGACY_REVISIONS_FILE, revisionsBinding(legacyFolders)],
  ]);
  return new Map([...source].map(([path, text]) => [path, bindings.has(path) ? header + bindings.get(path)! : path.endsWith(".ts") ? header + text : text]));
}

/**
 * An output made for a project that keeps its runtime (`"runtime": "kept"`, as this package's own
 * generated/ is) completed into what `mcp-gen types` writes for a project that does not: the
 * runtime beside the revision, bound to `legacyFolders`, and a manifest that records it. The
 * header is the output's own first line, so no schema is read (a new project is made offline).
 */
export function withEmittedRuntime(
  output: ReadonlyMap<string, string>,
  manifest: Manifest,
  runtime: { source: ReadonlyMap<string, string>; sha256: string },
  legacyFolders: readonly string[],
): Map<string, string> {
  const types = output.get("types.ts");
  if (types === undefined || runtimePlacement(manifest) !== "kept") throw new Error("withEmittedRuntime takes a kept-runtime output with its types.ts");
  const header = types.slice(0, types.indexOf("\n") + 1);
  const files = new Map([...output].filter(([path]) => path !== MANIFEST_FILE));
  for (const [path, text] of emitRuntime(runtime.source, header, legacyFolders)) files.set(path, text);
  const recorded = { ...currentInputs(manifest), runtime: "beside" as const, runtimeSourceSha256: runtime.sha256, legacyFolders: [...legacyFolders] };
  files.set(MANIFEST_FILE, renderManifest(recorded, files, manifest.summary));
  return files;
}

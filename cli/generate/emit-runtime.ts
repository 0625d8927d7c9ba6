import { readFileSync } from "node:fs";
import { join } from "node:path";
import { listFiles } from "../toolbox/files.js";

/**
 * The runtime's sources, as they are under templates/runtime/, keyed by their path inside
 * the output (runtime/<file>). They reach the revision's facts through one module,
 * runtime/protocol.ts, which the emitter writes anew (see BINDING_FILE).
 */
export function readRuntimeSource(dir: string): Map<string, string> {
  return new Map(listFiles(dir).map((path) => [`runtime/${path}`, readFileSync(join(dir, path), "utf8")]));
}

/** The binding module: in the source it points at this repository's pinned revision. */
export const BINDING_FILE = "runtime/protocol.ts";

/** Beside an emitted runtime, the binding points at the files generated next to it. */
const BINDING = `/** The facts of the protocol revision this runtime was generated for (see templates/runtime/protocol.ts). */
export * from "../types.js";
export * from "../methods.js";
export * from "../capabilities.js";
`;

/** The legacy binding: the 2025-11-25 facts, generated into a sibling folder beside the revision's own. */
export const LEGACY_BINDING_FILE = "runtime/legacy/protocol.ts";
const LEGACY_FOLDER = "v2511";
const LEGACY_BINDING = `/** The facts of the legacy revision, generated into the sibling folder ${LEGACY_FOLDER}/ (see templates/runtime/legacy/protocol.ts). */
export * from "../../../${LEGACY_FOLDER}/types.js";
export * from "../../../${LEGACY_FOLDER}/methods.js";
export * from "../../../${LEGACY_FOLDER}/capabilities.js";
`;
const BINDINGS: ReadonlyMap<string, string> = new Map([
  [BINDING_FILE, BINDING],
  [LEGACY_BINDING_FILE, LEGACY_BINDING],
]);

/**
 * Every TypeScript source is emitted as the generated header plus its bytes (the sources are
 * kept formatted as emitted, so no formatter runs here), other files verbatim; the binding
 * modules are replaced.
 */
export function emitRuntime(source: ReadonlyMap<string, string>, header: string): Map<string, string> {
  return new Map([...source].map(([path, text]) => [path, BINDINGS.has(path) ? header + BINDINGS.get(path)! : path.endsWith(".ts") ? header + text : text]));
}

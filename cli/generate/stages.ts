import type { SchemaIR } from "./ir.js";
import { emitTypes } from "./emit-types.js";
import { emitRuntime } from "./emit-runtime.js";
import { formatClaimed, loadFormatter } from "./format.js";
import type { SideThread } from "./side-thread.js";
import { sortedBy } from "./sort.js";

/**
 * The stages that make the output (normalize, build the IR, emit, format). The orchestrator
 * imports this module only once it knows something must be generated, so that
 * `types --check` on fresh output loads none of them.
 */
export { normalizeSchema } from "./normalize.js";
export { buildIR } from "./ir.js";
export { generatedHeader } from "./header.js";

/**
 * Two cores: this thread emits and formats types.ts while the side thread builds the maps;
 * both format the runtime files from one shared list; this thread formats the maps, its
 * prettier being warm by then. One prettier pass per file.
 */
export async function emitAll(ir: SchemaIR, header: string, templates: ReadonlyMap<string, string>, side: SideThread): Promise<Map<string, string>> {
  const runtime = ir.maps.subscriptionKinds === null ? new Map<string, string>() : emitRuntime(templates, header);
  const shared: Array<[string, string]> = [];
  const next = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const fromSide = side.start({ maps: ir.maps, shared, next });
  const types = header + (await emitTypes(ir));
  const format = await loadFormatter();
  const files: Array<[string, string]> = [["types.ts", await format("types.ts", types)]];
  files.push(...(await formatClaimed(shared, next, format)));
  for (const [path, text] of Object.entries(await fromSide.maps)) files.push([path, await format(path, header + text)]);
  files.push(...(await fromSide.formatted), ...runtime);
  return new Map(sortedBy(files, ([path]) => path));
}

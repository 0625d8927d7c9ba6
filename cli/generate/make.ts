import type { SchemaIR } from "./ir-model.js";
import type { LoadedSchema } from "./load.js";
import type { Lock, SchemaIdentity } from "./verify.js";
import { normalizeSchema } from "./normalize.js";
import { buildIR } from "./ir.js";
import { generatedHeader } from "./header.js";
import { emitTypes } from "./emit-types.js";
import { emitMaps } from "./emit-maps.js";
import { emitShapes } from "./emit-shapes.js";
import { emitRuntime } from "./emit-runtime.js";
import { loadFormatter } from "./format.js";
import { sortedBy } from "../toolbox/sort.js";
import { mergeExtensions, type LoadedExtension } from "./extend.js";
import { toDefsForm } from "./dialect.js";
import { refuseVerbatimMembers } from "./foreign-schema.js";

/**
 * Makes every output file from a verified schema, one stage after the other: read it in the
 * 2020-12 form (dialect.ts), merge the extensions into it (extend.ts), normalize it,
 * derive the IR, emit types.ts (json-schema-to-typescript, then prettier), print the two maps
 * (already in their formatted layout) and the shapes (then prettier), and add the runtime (header plus source bytes,
 * nothing to format) when the IR says the revision has one and --types-only was not given. The orchestrator imports this module only once it knows
 * something must be generated, and the libraries load on first use, so a `--check` of fresh
 * output loads none of this.
 */
export async function makeOutput(
  loaded: LoadedSchema,
  identity: SchemaIdentity,
  lock: Lock,
  runtimeSource: ReadonlyMap<string, string>,
  extensions: readonly LoadedExtension[] = [],
  legacyFolders: readonly string[] = [],
  typesOnly = false,
): Promise<{ files: Map<string, string>; ir: SchemaIR }> {
  // A pinned schema's bytes are checked against the lock and mcp-gen's own extensions ship with it: only other input is inspected.
  if (!identity.pinned) refuseVerbatimMembers(loaded.json, loaded.location);
  for (const extension of extensions) if (!extension.owned) refuseVerbatimMembers(extension.schema.json, extension.schema.location);
  const { schema, contributions } = mergeExtensions(toDefsForm(loaded), extensions);
  const ir = buildIR(normalizeSchema(schema), identity, contributions);
  const header = generatedHeader(identity, lock, extensions);
  const maps = emitMaps(ir.maps);
  const format = await loadFormatter();
  const files: Array<[string, string]> = [
    ["types.ts", await format("types.ts", header + (await emitTypes(ir)))],
    ["methods.ts", header + maps["methods.ts"]],
    ["capabilities.ts", header + maps["capabilities.ts"]],
    ["shapes.ts", await format("shapes.ts", header + emitShapes(identity.revision, ir.shapes))],
  ];
  if (ir.withRuntime && !typesOnly) files.push(...emitRuntime(runtimeSource, header, legacyFolders));
  return { files: new Map(sortedBy(files, ([path]) => path)), ir };
}

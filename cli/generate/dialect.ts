import { CliError } from "../errors.js";
import type { LoadedSchema } from "./load.js";

/**
 * The published schemas come in two JSON Schema dialects: draft-07 (2024-11-05 to
 * 2025-06-18) keeps its definitions under `definitions` and points at them with
 * `#/definitions/<name>`; 2020-12 (2025-11-25 on) uses `$defs` and `#/$defs/<name>`. Every
 * later stage reads the 2020-12 form, so this stage rewrites a draft-07 schema into it once:
 * the map moves to `$defs` and every `$ref` into it is rewritten. A schema that already has
 * `$defs` is returned as it is (the same object: nothing is copied).
 */
export function toDefsForm(loaded: LoadedSchema): LoadedSchema {
  const root = loaded.json;
  if ("$defs" in root) return loaded;
  const definitions = root.definitions;
  if (!isRecord(definitions)) {
    throw new CliError(`${loaded.location} is not a JSON Schema with definitions: it has neither "$defs" nor "definitions"`, {
      hint: "pass an MCP protocol schema.json (2020-12 with $defs, or draft-07 with definitions)",
    });
  }
  const { definitions: _moved, ...rest } = root;
  return { ...loaded, json: { ...rest, $defs: rewriteRefs(definitions) } };
}

const DRAFT07_REF = "#/definitions/";
const DEFS_REF = "#/$defs/";

/** A copy of the node with every `#/definitions/...` reference pointing at `#/$defs/...`. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (!isRecord(node)) return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    const rewritten =
      key === "$ref" && typeof value === "string" && value.startsWith(DRAFT07_REF) ? DEFS_REF + value.slice(DRAFT07_REF.length) : rewriteRefs(value);
    // Defined, not assigned: a "__proto__" key stays a key for normalize.ts to refuse by name.
    Object.defineProperty(copy, key, { value: rewritten, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

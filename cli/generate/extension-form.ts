/**
 * A published extension schema in the form the merge reads. Schemas generated definition by
 * definition (the ext-apps package's is made from zod, one `toJSONSchema` per type) give each
 * definition its own `$schema` and its own `$defs`, referenced as `#/$defs/<key>` from inside
 * that definition. Merged into one document those references would point at the root, so each
 * nested definition is hoisted to the top level under its owner's name plus its key
 * (`McpUiHostContext` + `__schema0` -> `McpUiHostContextSchema0`), one top-level definition
 * for nested ones that are equal, and the owner's references rewritten to it. A definition's own
 * `$schema` is dropped: the merged document has one dialect.
 */
type JsonRecord = Record<string, unknown>;

const isRecord = (value: unknown): value is JsonRecord => typeof value === "object" && value !== null && !Array.isArray(value);

export function hoistNestedDefinitions(defs: Readonly<JsonRecord>): JsonRecord {
  const result: JsonRecord = {};
  /** Hoisted definitions by their JSON text, so equal ones share one name. */
  const hoistedByText = new Map<string, string>();
  for (const name of Object.keys(defs).sort()) {
    const def = defs[name];
    if (!isRecord(def)) {
      result[name] = def;
      continue;
    }
    const { $schema: _dialect, $defs: nested, ...rest } = def;
    const renames = new Map<string, string>();
    for (const [key, inner] of Object.entries(isRecord(nested) ? nested : {})) {
      const text = JSON.stringify(inner);
      const target = hoistedByText.get(text) ?? `${name}${pascal(key)}`;
      hoistedByText.set(text, target);
      renames.set(key, target);
    }
    const rewrite = (node: unknown): unknown => rewriteRefs(node, renames);
    result[name] = rewrite(rest);
    for (const [key, inner] of Object.entries(isRecord(nested) ? nested : {})) result[renames.get(key)!] ??= rewrite(inner);
  }
  return result;
}

/** `__schema0` -> `Schema0`, `json-value` -> `JsonValue`. */
function pascal(key: string): string {
  return key
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join("");
}

const DEFS = "#/$defs/";

function rewriteRefs(node: unknown, renames: ReadonlyMap<string, string>): unknown {
  if (renames.size === 0) return node;
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, renames));
  if (!isRecord(node)) return node;
  const copy: JsonRecord = {};
  for (const [key, value] of Object.entries(node)) {
    const local = key === "$ref" && typeof value === "string" && value.startsWith(DEFS) ? renames.get(value.slice(DEFS.length)) : undefined;
    copy[key] = local !== undefined ? `${DEFS}${local}` : rewriteRefs(value, renames);
  }
  return copy;
}

/**
 * The portable form of a tool's schema: every local `$ref` replaced by what it points at,
 * and the root's `$defs`/`definitions` dropped once nothing refers to them, so that a client
 * handing the schema to a model that knows no references (Gemini's function declarations,
 * clients that strip keywords) keeps all of it. Served with `createServer({ toolSchemas:
 * "portable" })`; the schema the server checks arguments against is the one given.
 *
 * A schema is left as given when inlining it cannot be done faithfully and small: a recursive
 * reference (a tree, a linked list: its expansion has no end), a reference that is not a
 * JSON pointer into the schema itself, references nested deeper than MAX_INLINE_DEPTH, or an
 * expansion larger than MAX_INLINED_NODES subschemas (shared definitions used many times
 * over can grow exponentially).
 */

/** References expanded one inside another at most; deeper, the schema is left as given. */
export const MAX_INLINE_DEPTH = 32;
/** Subschemas the expansion may hold at most; beyond, the schema is left as given. */
export const MAX_INLINED_NODES = 10_000;

/** How a server lists its tools' schemas: as given, or with references inlined. */
export type ToolSchemaForm = "as-given" | "portable";

/** Keywords that may stand beside `$ref` and be merged into what it points at: they only annotate. */
const ANNOTATIONS = new Set(["description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"]);

type Json = unknown;

/** Why a schema could not be inlined; thrown inside, caught by `portableSchema`. */
class LeftAsGiven extends Error {}

/** The schema with its local references inlined, or the schema itself when it holds none or cannot be inlined. */
export function portableSchema<S>(schema: S): S {
  if (!holdsReference(schema, 0)) return schema;
  const state = { nodes: 0 };
  try {
    // The definitions go: everything that uses them gets a copy. Expanding them too would
    // spend the bounds on copies nobody lists (and fail on an unused recursive one).
    return expand(withoutDefinitions(schema), schema, [], state) as S;
  } catch (error) {
    if (error instanceof LeftAsGiven) return schema;
    throw error;
  }
}

function expand(node: Json, root: Json, following: readonly string[], state: { nodes: number }): Json {
  if (++state.nodes > MAX_INLINED_NODES) throw new LeftAsGiven("too large");
  if (Array.isArray(node)) return node.map((item) => expand(item, root, following, state));
  if (!isObject(node)) return node;
  const reference = node["$ref"];
  if (typeof reference === "string") {
    if (following.includes(reference)) throw new LeftAsGiven(`recursive: ${reference}`);
    if (following.length >= MAX_INLINE_DEPTH) throw new LeftAsGiven("too deep");
    const target = resolve(root, reference);
    const inlined = expand(target, root, [...following, reference], state);
    const { $ref: _reference, ...beside } = node;
    const besides = expand(beside, root, following, state) as Record<string, Json>;
    if (Object.keys(besides).length === 0) return inlined;
    // Annotations beside the reference describe this use of it: they win. Anything else is
    // a constraint of its own, kept beside the target through allOf (what $ref means in 2020-12).
    if (Object.keys(besides).every((keyword) => ANNOTATIONS.has(keyword)) && isObject(inlined)) return { ...inlined, ...besides };
    return { ...besides, allOf: [inlined] };
  }
  const copy: Record<string, Json> = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (NOT_SCHEMAS.has(keyword)) copy[keyword] = value;
    else if (SCHEMA_MAPS.has(keyword) && isObject(value)) copy[keyword] = expandMap(value, root, following, state);
    else copy[keyword] = expand(value, root, following, state);
  }
  return copy;
}

/** A map of schemas (`properties`, ...): its member names are names, never keywords. */
function expandMap(map: Record<string, Json>, root: Json, following: readonly string[], state: { nodes: number }): Record<string, Json> {
  const copy: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(map)) copy[name] = expand(schema, root, following, state);
  return copy;
}

/**
 * Keywords whose value is not a schema are copied as they are: an `enum` or `const` value, a
 * `default`, `examples`, may well hold a member named `$ref`.
 */
const NOT_SCHEMAS = new Set(["enum", "const", "default", "examples", "example", "required"]);
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/** What a local JSON pointer reference (`#/$defs/Name`) points at; anything else is left as given. */
function resolve(root: Json, reference: string): Json {
  if (!reference.startsWith("#/")) throw new LeftAsGiven(`not a local pointer: ${reference}`);
  let node = root;
  for (const raw of reference.slice(2).split("/")) {
    const token = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isObject(node) && !Array.isArray(node)) throw new LeftAsGiven(`unresolved: ${reference}`);
    node = (node as Record<string, Json>)[token];
    if (node === undefined) throw new LeftAsGiven(`unresolved: ${reference}`);
  }
  return node;
}

/** The root without `$defs`/`definitions`, whose every use is inlined. */
function withoutDefinitions(schema: Json): Json {
  if (!isObject(schema)) return schema;
  const { $defs: _defs, definitions: _definitions, ...rest } = schema;
  return rest;
}

/** Whether a `$ref` appears anywhere in a schema position (bounded like the expansion's depth). */
function holdsReference(node: Json, depth: number): boolean {
  if (depth > MAX_INLINED_NODES) return false;
  if (Array.isArray(node)) return node.some((item) => holdsReference(item, depth + 1));
  if (!isObject(node)) return false;
  if (typeof node["$ref"] === "string") return true;
  return Object.entries(node).some(([keyword, value]) => {
    if (NOT_SCHEMAS.has(keyword)) return false;
    if (SCHEMA_MAPS.has(keyword) && isObject(value)) return Object.values(value).some((schema) => holdsReference(schema, depth + 1));
    return holdsReference(value, depth + 1);
  });
}

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

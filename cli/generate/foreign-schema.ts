/**
 * Schemas mcp-gen does not own (an extension file or package, an unpinned `--schema`, a
 * tool a server lists) reach json-schema-to-typescript, which prints a few members as they
 * are: `tsType` is a TypeScript type written out verbatim, `tsEnumNames` names enum members,
 * and a `minItems`/`maxItems` that is not a number lands in a doc comment. In such a value
 * `string; globalThis.x = 1; type T = string` (or a `*\/`) becomes code that runs wherever
 * the generated file is imported. They are found here, before the library sees the schema,
 * to be refused (`mcp-gen types`) or left out (`mcp-gen client`). Also here: how deep a
 * schema may nest, and `$ref` cycles that name no type, which the library cannot print.
 */

import { CliError } from "../errors.js";
import { commentText } from "../toolbox/escape.js";

/**
 * How deep a schema may nest (objects and arrays, counted from a definition or a tool's
 * schema). The MCP schemas nest about 10 deep; far deeper input is refused rather than
 * overflowing a recursive library later.
 */
export const MAX_NESTING = 64;

/** A member json-schema-to-typescript would print verbatim, and where it is. */
export interface VerbatimMember {
  readonly keyword: string;
  /** Its JSON pointer (RFC 6901) from the walked value. */
  readonly pointer: string;
}

type Json = unknown;
type JsonRecord = Record<string, Json>;

const isRecord = (value: Json): value is JsonRecord => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Whether the member prints as code. Anywhere in the schema, not only at schema positions:
 * a `$ref` can make any part of the document a schema. An object value is a schema (a
 * property named `tsType`) and prints nothing of itself.
 */
function isVerbatim(key: string, value: Json): boolean {
  if (key === "tsType" || key === "tsEnumNames") return !isRecord(value);
  if (key === "minItems" || key === "maxItems") return typeof value !== "number" && !isRecord(value);
  return false;
}

/** `/properties/a~1b`, from the keys down to a node. */
export function jsonPointer(trail: readonly (string | number)[]): string {
  return trail.map((key) => `/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

/**
 * Every verbatim member of `root` (see isVerbatim), or the pointer of the first node nested
 * deeper than `limit`. Walked with a list, not recursion, so no depth overflows it.
 */
export function findVerbatimMembers(root: Json, limit: number): { found: VerbatimMember[]; tooDeep?: string } {
  const found: VerbatimMember[] = [];
  const pending: Array<{ node: Json; trail: (string | number)[] }> = [{ node: root, trail: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, trail } = next;
    if (node === null || typeof node !== "object") continue;
    if (trail.length > limit) return { found, tooDeep: jsonPointer(trail) };
    const entries: Array<[string | number, Json]> = Array.isArray(node) ? node.map((item, index) => [index, item]) : Object.entries(node);
    for (const [key, value] of entries.reverse()) {
      if (typeof key === "string" && isVerbatim(key, value)) found.push({ keyword: key, pointer: jsonPointer([...trail, key]) });
      else pending.push({ node: value, trail: [...trail, key] });
    }
  }
  return { found };
}

/**
 * A copy of `root` for json-schema-to-typescript: without its verbatim members, its
 * descriptions and patterns (commentSafePatterns) safe for the doc comments they become.
 * `root` must nest no deeper than MAX_NESTING (findVerbatimMembers said so). Objects are
 * rebuilt with Object.fromEntries, which keeps a `__proto__` key as data.
 */
export function withoutVerbatimMembers(root: Json): Json {
  if (Array.isArray(root)) return root.map(withoutVerbatimMembers);
  if (!isRecord(root)) return root;
  const copy = Object.fromEntries(
    Object.entries(root)
      .filter(([key, value]) => !isVerbatim(key, value))
      .map(([key, value]) => [key, key === "description" && typeof value === "string" ? commentText(value) : withoutVerbatimMembers(value)]),
  );
  if (isRecord(copy.patternProperties)) copy.patternProperties = commentSafePatterns(copy.patternProperties);
  return copy;
}

/** Keywords whose members stand for the schema itself: a `$ref` there makes it an alias of the target. */
const ALIAS_KEYWORDS = ["anyOf", "oneOf", "allOf"];

/** The node a local `$ref` (`#`, `#/$defs/A`) points to in `root`, or undefined (another document, a missing node). */
function resolveLocal(root: Json, ref: string): Json {
  if (!ref.startsWith("#")) return undefined;
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return undefined;
  let here: Json = root;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(here) && /^\d+$/.test(key)) here = here[Number(key)];
    else if (isRecord(here) && Object.hasOwn(here, key)) here = here[key];
    else return undefined;
  }
  return here;
}

/** The `$ref`s a node is an alias of: its own, and those of its union and intersection members. */
function aliasRefs(node: Json, depth = 0): string[] {
  if (!isRecord(node) || depth > MAX_NESTING) return [];
  const own = typeof node.$ref === "string" ? [node.$ref] : [];
  const members = ALIAS_KEYWORDS.flatMap((keyword) => {
    const list = node[keyword];
    return Array.isArray(list) ? list.flatMap((member) => aliasRefs(member, depth + 1)) : [];
  });
  return [...own, ...members];
}

/**
 * A `$ref` cycle that names no type (`A: { $ref: B }`, `B: { $ref: A }`, or `{ $ref: "#" }`
 * at the root): the `$ref`s that form it, or undefined. A `$ref` inside a property or an
 * array is a recursive type and fine; only alias positions count.
 */
export function aliasCycle(root: Json): string[] | undefined {
  const done = new Set<Json>();
  const visit = (node: Json, trail: Array<{ node: Json; ref: string }>): string[] | undefined => {
    const start = trail.findIndex((step) => step.node === node);
    if (start >= 0) return trail.slice(start).map((step) => step.ref);
    if (done.has(node)) return undefined;
    for (const ref of aliasRefs(node)) {
      const target = resolveLocal(root, ref);
      if (target === undefined || trail.length > MAX_NESTING) continue;
      const cycle = visit(target, [...trail, { node, ref }]);
      if (cycle !== undefined) return cycle;
    }
    done.add(node);
    return undefined;
  };
  const nodes: Json[] = [root];
  for (const keyword of ["$defs", "definitions"]) {
    const defs = isRecord(root) ? root[keyword] : undefined;
    if (isRecord(defs)) nodes.push(...Object.values(defs));
  }
  for (const node of nodes) {
    const cycle = visit(node, []);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

/**
 * `mcp-gen types`: a schema mcp-gen does not own (an extension file or package, an unpinned
 * `--schema`) holding a verbatim member is refused, naming the first: generated types run
 * at every server start, and a schema the user points at is one they can fix. Its
 * definitions sit two levels below the root (`/$defs/Name`), so the depth bound allows that.
 */
export function refuseVerbatimMembers(json: unknown, location: string): void {
  const { found, tooDeep } = findVerbatimMembers(json, MAX_NESTING + 2);
  if (tooDeep !== undefined) {
    throw new CliError(
      `${location} is nested deeper than ${MAX_NESTING} levels below its definitions (at ${tooDeep.length > 60 ? `${tooDeep.slice(0, 60)}...` : tooDeep})`,
      {
        hint: "split it into named definitions joined by $ref",
      },
    );
  }
  const first = found[0];
  if (first === undefined) return;
  throw new CliError(`${location} has "${first.keyword}" at ${first.pointer}, which json-schema-to-typescript would print into the generated code as it is`, {
    hint: `remove it from the schema (mcp-gen takes no TypeScript from a schema it does not ship; a package's schema: copy it without "${first.keyword}" and pass the file)`,
  });
}

/**
 * json-schema-to-typescript quotes each `patternProperties` pattern in a doc comment and
 * escapes only its first `*\/`: the patterns of one map, made safe for that comment (a
 * pattern there names no property, so only the comment sees the change).
 */
export function commentSafePatterns(patterns: Readonly<JsonRecord>): JsonRecord {
  return Object.fromEntries(Object.entries(patterns).map(([pattern, schema]) => [commentText(pattern), schema]));
}

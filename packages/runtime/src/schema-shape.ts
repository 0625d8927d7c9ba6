/**
 * The shape of a JSON Schema (2020-12) checked without a meta-schema: each keyword the spec
 * defines holds a value of its kind (`type` a JSON type name, `required` a list of strings,
 * `minimum` a number, a subschema an object or a boolean). Ajv refuses such a schema when it
 * compiles it; @cfworker/json-schema takes it and then checks values against it in ways the
 * author never meant (`required: "a"` requires nothing). One walk, no code generated, so a
 * server that interprets its schemas still refuses a malformed one at `addTool`.
 */

const TYPE_NAMES: ReadonlySet<string> = new Set(["null", "boolean", "object", "array", "number", "integer", "string"]);
/** Keywords holding one subschema. */
const SCHEMA_KEYWORDS = [
  "additionalProperties",
  "items",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
] as const;
/** Keywords holding a non-empty list of subschemas. */
const SCHEMA_LIST_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
/** Keywords holding an object whose values are subschemas. */
const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "$defs", "dependentSchemas"] as const;
const NUMBER_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const;
const COUNT_KEYWORDS = ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"] as const;

/** Throws an Error naming the first malformed keyword by its JSON pointer in `schema`. */
export function assertSchemaShape(schema: unknown): void {
  // A list, not recursion: a deeply nested schema cannot overflow the stack.
  const pending: { node: unknown; place: string }[] = [{ node: schema, place: "" }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, place } = next;
    if (typeof node === "boolean") continue;
    if (!isRecord(node)) throw new Error(`${place || "/"} must be a schema (an object or a boolean)`);
    const reason = keywordFault(node);
    if (reason !== undefined) throw new Error(`${place}/${reason}`);
    for (const child of subschemas(node)) pending.push({ node: child.node, place: `${place}/${child.place}` });
  }
}

/** "keyword what it must be" for the first keyword of `node` holding a value of the wrong kind. */
function keywordFault(node: Record<string, unknown>): string | undefined {
  const type = node["type"];
  if (type !== undefined && !(isTypeName(type) || (Array.isArray(type) && type.length > 0 && type.every(isTypeName))))
    return "type must be a JSON type name or a list of them";
  if (node["required"] !== undefined && !isStringList(node["required"])) return "required must be a list of property names";
  if (node["enum"] !== undefined && !Array.isArray(node["enum"])) return "enum must be a list";
  if (node["uniqueItems"] !== undefined && typeof node["uniqueItems"] !== "boolean") return "uniqueItems must be a boolean";
  for (const key of NUMBER_KEYWORDS) if (node[key] !== undefined && !Number.isFinite(node[key])) return `${key} must be a number`;
  for (const key of COUNT_KEYWORDS) if (node[key] !== undefined && !isCount(node[key])) return `${key} must be a whole number, 0 or more`;
  const multipleOf = node["multipleOf"];
  if (multipleOf !== undefined && !(typeof multipleOf === "number" && Number.isFinite(multipleOf) && multipleOf > 0))
    return "multipleOf must be a number above 0";
  if (node["pattern"] !== undefined && !isPattern(node["pattern"])) return "pattern must be a regular expression";
  const dependentRequired = node["dependentRequired"];
  if (dependentRequired !== undefined && !(isRecord(dependentRequired) && Object.values(dependentRequired).every(isStringList)))
    return "dependentRequired must map property names to lists of property names";
  for (const key of SCHEMA_LIST_KEYWORDS) {
    const list = node[key];
    if (list !== undefined && !(Array.isArray(list) && list.length > 0)) return `${key} must be a non-empty list of schemas`;
  }
  for (const key of SCHEMA_MAP_KEYWORDS) if (node[key] !== undefined && !isRecord(node[key])) return `${key} must be an object of schemas`;
  if (isRecord(node["patternProperties"])) {
    const bad = Object.keys(node["patternProperties"]).find((pattern) => !isPattern(pattern));
    if (bad !== undefined) return `patternProperties ${JSON.stringify(bad)} must be a regular expression`;
  }
  return undefined;
}

/** The subschemas of `node` with their places relative to it (keywords holding data, as `const`, are not walked). */
function* subschemas(node: Record<string, unknown>): Generator<{ node: unknown; place: string }> {
  for (const key of SCHEMA_KEYWORDS) if (node[key] !== undefined) yield { node: node[key], place: key };
  for (const key of SCHEMA_LIST_KEYWORDS) {
    const list = node[key];
    if (Array.isArray(list)) for (const [index, child] of list.entries()) yield { node: child, place: `${key}/${index}` };
  }
  for (const key of SCHEMA_MAP_KEYWORDS) {
    const map = node[key];
    if (isRecord(map)) for (const [name, child] of Object.entries(map)) yield { node: child, place: `${key}/${escapePointer(name)}` };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isTypeName(value: unknown): boolean {
  return typeof value === "string" && TYPE_NAMES.has(value);
}

function isStringList(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isCount(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function isPattern(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    new RegExp(value, "u");
    return true;
  } catch {
    return false;
  }
}

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

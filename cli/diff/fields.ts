import { isObject, refName, type JsonObject, type JsonValue } from "../generate/normalize.js";

/** One property of an object a revision defines: its type as text, and whether it must be present. */
export interface Field {
  type: string;
  required: boolean;
}

export type Fields = Record<string, Field>;

type Definitions = ReadonlyMap<string, JsonObject>;

/** How deep an inline object's own properties are spelled out in a type's text; deeper ones read `object`. */
const INLINE_DEPTH = 2;

/**
 * The properties of an object schema, its own and those of each `allOf` part (a named part
 * followed through its definition), by name. A reference is followed once at the top, so
 * `params: { $ref: X }` gives X's properties.
 */
export function fieldsOf(defs: Definitions, node: JsonValue | undefined, seen: ReadonlySet<string> = new Set()): Fields {
  const name = refName(node);
  if (name !== undefined) return seen.has(name) ? {} : fieldsOf(defs, defs.get(name), new Set([...seen, name]));
  if (!isObject(node)) return {};
  const fields: Fields = {};
  for (const part of Array.isArray(node.allOf) ? node.allOf : []) Object.assign(fields, fieldsOf(defs, part, seen));
  const required = new Set(Array.isArray(node.required) ? node.required.filter((key) => typeof key === "string") : []);
  const properties = isObject(node.properties) ? node.properties : {};
  for (const [key, property] of Object.entries(properties)) fields[key] = { type: typeText(property), required: required.has(key) };
  return fields;
}

/**
 * A schema node as a short TypeScript-like text: a definition by its name, a constant as its
 * JSON, unions joined by `|`, arrays as `T[]`, inline objects with their properties (to a
 * depth), anything unconstrained as `unknown`. Descriptions never count, so two texts differ
 * only when what is accepted differs.
 */
export function typeText(node: JsonValue | undefined, depth = 0): string {
  const name = refName(node);
  if (name !== undefined) return name;
  if (node === true || node === undefined) return "unknown";
  if (!isObject(node)) return "never";
  if ("const" in node) return JSON.stringify(node.const);
  if (Array.isArray(node.enum)) return node.enum.map((value) => JSON.stringify(value)).join(" | ");
  const union = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (union) return union.map((member) => typeText(member, depth)).join(" | ");
  if (Array.isArray(node.allOf)) return node.allOf.map((part) => typeText(part, depth)).join(" & ");
  const types = Array.isArray(node.type) ? node.type.map(String) : typeof node.type === "string" ? [node.type] : [];
  if (types.length === 0) return isObject(node.properties) ? objectText(node, depth) : "unknown";
  return types.map((type) => (type === "array" ? arrayText(node, depth) : type === "object" ? objectText(node, depth) : type === "integer" ? "number" : type)).join(" | ");
}

function arrayText(node: JsonObject, depth: number): string {
  const item = typeText(node.items, depth);
  return /[ |&]/.test(item) ? `(${item})[]` : `${item}[]`;
}

function objectText(node: JsonObject, depth: number): string {
  const properties = isObject(node.properties) ? node.properties : undefined;
  if (!properties || Object.keys(properties).length === 0) {
    const values = node.additionalProperties;
    return isObject(values) && Object.keys(values).length > 0 ? `{ [key: string]: ${typeText(values, depth)} }` : "object";
  }
  if (depth >= INLINE_DEPTH) return "object";
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const members = Object.entries(properties).map(([key, value]) => `${key}${required.has(key) ? "" : "?"}: ${typeText(value, depth + 1)}`);
  return `{ ${members.join("; ")} }`;
}

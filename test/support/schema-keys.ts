/**
 * Which keys of a JSON value a revision's schema does not declare: the value is walked
 * against one named definition of the schema (draft-07 `definitions` or 2020-12 `$defs`),
 * following `$ref`, `properties`, `items`, `allOf` and `anyOf`/`oneOf`. An object schema
 * without `properties` (`_meta`, `experimental`, `structuredContent`, a tool's
 * `inputSchema.properties`) is free-form and not walked. Every key present in the value that
 * the definition does not declare under `properties` is reported by its path, e.g.
 * `$.capabilities.completions`.
 */
import { readFileSync } from "node:fs";
import { schemaPath, type Revision } from "./schemas.js";

type Schema = { [keyword: string]: unknown };

export interface SchemaDocument {
  definitions?: Record<string, Schema>;
  $defs?: Record<string, Schema>;
}

const loaded = new Map<Revision, SchemaDocument>();

/** The upstream schema of `revision`, read once. */
export function revisionSchema(revision: Revision): SchemaDocument {
  let document = loaded.get(revision);
  if (document === undefined) {
    document = JSON.parse(readFileSync(schemaPath(revision), "utf8")) as SchemaDocument;
    loaded.set(revision, document);
  }
  return document;
}

/** The paths of every key in `value` that `definition` (and what it refers to) does not declare. */
export function undeclaredKeys(value: unknown, document: SchemaDocument, definition: string): string[] {
  const definitions = document.$defs ?? document.definitions;
  const root = definitions?.[definition];
  if (root === undefined) throw new Error(`the schema defines no ${definition}`);
  const found: string[] = [];
  walk(value, root, "$", document, found, 0);
  return found;
}

function resolve(schema: Schema, document: SchemaDocument): Schema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === "string"; hops++) {
    if (hops > 32) throw new Error(`$ref chain too long at ${String(current.$ref)}`);
    const match = /^#\/(definitions|\$defs)\/(.+)$/.exec(current.$ref);
    if (match === null) throw new Error(`unsupported $ref ${current.$ref}`);
    const target = (match[1] === "$defs" ? document.$defs : document.definitions)?.[decodeURIComponent(match[2])];
    if (target === undefined) throw new Error(`dangling $ref ${current.$ref}`);
    current = target;
  }
  return current;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function walk(value: unknown, schema: unknown, path: string, document: SchemaDocument, found: string[], depth: number): void {
  if (!isObject(schema) || depth > 64) return; // a boolean schema (`true`) allows anything
  let resolved = resolve(schema, document);

  if (Array.isArray(resolved.allOf)) {
    // The members together declare the union of their properties.
    const members = (resolved.allOf as Schema[]).map((member) => resolve(member, document));
    const properties = Object.assign({}, resolved.properties ?? {}, ...members.map((member) => member.properties ?? {})) as Record<string, unknown>;
    const items = resolved.items ?? members.find((member) => member.items !== undefined)?.items;
    const merged: Schema = { ...resolved, allOf: undefined, items };
    if (Object.keys(properties).length > 0 || members.some((member) => member.properties !== undefined)) merged.properties = properties;
    resolved = merged;
  }

  const union = (resolved.anyOf ?? resolved.oneOf) as Schema[] | undefined;
  if (Array.isArray(union)) {
    walkUnion(value, union, path, document, found, depth);
    return;
  }

  if (Array.isArray(value)) {
    if (resolved.items !== undefined) value.forEach((item, index) => walk(item, resolved.items, `${path}[${index}]`, document, found, depth + 1));
    return;
  }
  if (!isObject(value) || !isObject(resolved.properties)) return;
  const properties = resolved.properties;
  for (const key of Object.keys(value)) {
    const child = `${path}.${key}`;
    if (!Object.hasOwn(properties, key)) found.push(child);
    else walk(value[key], properties[key], child, document, found, depth + 1);
  }
}

/**
 * A union member is picked by the constants it declares (a content block's `type`): the
 * members whose every `const` property the value matches. Of those (or of all, when none
 * matches), the one that leaves the fewest keys undeclared is walked.
 */
function walkUnion(value: unknown, union: Schema[], path: string, document: SchemaDocument, found: string[], depth: number): void {
  const members = union.map((member) => resolve(member, document));
  let candidates = members;
  if (isObject(value)) {
    const matching = members.filter((member) => {
      const properties = isObject(member.properties) ? member.properties : {};
      const constants = Object.entries(properties).filter(([, property]) => isObject(property) && "const" in property);
      return constants.length > 0 && constants.every(([key, property]) => value[key] === (property as Schema).const);
    });
    if (matching.length > 0) candidates = matching;
  }
  let best: string[] | undefined;
  for (const member of candidates) {
    const attempt: string[] = [];
    walk(value, member, path, document, attempt, depth + 1);
    if (best === undefined || attempt.length < best.length) best = attempt;
  }
  found.push(...(best ?? []));
}

import { CliError } from "../errors.js";
import type { LoadedSchema } from "./load.js";
import { sorted } from "./sort.js";

export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** A schema after normalization: its definitions by name, descriptions made safe for doc comments. */
export interface NormalizedSchema {
  definitions: Map<string, JsonObject>;
}

const DEF_REF = /^#\/\$defs\/(.+)$/;

/** Parses, validates and repairs a loaded schema. */
export function normalizeSchema(loaded: LoadedSchema): NormalizedSchema {
  const root = loaded.json as JsonObject;
  const defs = root.$defs;
  if (!isObject(defs) || Object.keys(defs).length === 0) {
    throw new CliError(`${loaded.location} is not a JSON Schema with definitions: it has no "$defs" object`, {
      hint: "pass the MCP protocol schema.json (JSON Schema 2020-12 with a $defs map)",
    });
  }
  const names = sorted(Object.keys(defs));
  const known = new Set(names);
  const definitions = new Map<string, JsonObject>();
  for (const name of names) {
    const def = defs[name];
    if (!isObject(def)) {
      throw new CliError(`${loaded.location}: $defs.${name} is not a schema object`, { hint: "fix the schema or use a pinned one" });
    }
    checkRefs(def, `$defs.${name}`, known, loaded.location);
    definitions.set(name, repairDescriptions(def, names) as JsonObject);
  }
  return { definitions };
}

function checkRefs(node: JsonValue, at: string, known: Set<string>, location: string): void {
  if (Array.isArray(node)) {
    node.forEach((item, index) => checkRefs(item, `${at}[${index}]`, known, location));
    return;
  }
  if (!isObject(node)) return;
  if (typeof node.$ref === "string") {
    const target = DEF_REF.exec(node.$ref)?.[1];
    if (!target || !known.has(target)) {
      throw new CliError(`${location}: $ref "${node.$ref}" at ${at} points to a missing definition`, {
        hint: "add the definition to $defs or fix the reference (only #/$defs/<Name> references are supported)",
      });
    }
  }
  for (const [key, value] of Object.entries(node)) checkRefs(value, `${at}.${key}`, known, location);
}

/** Descriptions become doc comments: repair mangled links and make sure none can end the comment. */
function repairDescriptions(node: JsonValue, names: readonly string[]): JsonValue {
  if (Array.isArray(node)) return node.map((item) => repairDescriptions(item, names));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === "description" && typeof value === "string" ? safeDescription(value, names) : repairDescriptions(value, names);
  }
  return out;
}

/**
 * The upstream generator drops the separator between a link's target and its label:
 * `{@link SubscriptionsListenRequestsubscriptions/listen}` means
 * `{@link SubscriptionsListenRequest | subscriptions/listen}`. The target is the longest
 * definition name the text starts with; `Name.member` paths are left as they are.
 */
export function repairLinks(text: string, names: readonly string[]): string {
  return text.replace(/\{@link ([^}|]+)\}/g, (link, body: string) => {
    const target = names
      .filter((name) => body.startsWith(name))
      .reduce<string | undefined>((longest, name) => (longest && longest.length >= name.length ? longest : name), undefined);
    const label = target ? body.slice(target.length) : "";
    if (!target || label === "" || label.startsWith(".")) return link;
    return `{@link ${target} | ${label.trim()}}`;
  });
}

/** `*\/` would close the doc comment that carries the description. */
export function escapeCommentEnd(text: string): string {
  return text.replaceAll("*/", "*\\/");
}

function safeDescription(text: string, names: readonly string[]): string {
  return escapeCommentEnd(repairLinks(text, names));
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function refName(node: JsonValue | undefined): string | undefined {
  return isObject(node) && typeof node.$ref === "string" ? DEF_REF.exec(node.$ref)?.[1] : undefined;
}

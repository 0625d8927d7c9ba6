import { existsSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../errors.js";
import { loadSchema, type LoadedSchema } from "./load.js";
import { packageRoot } from "./paths.js";
import { findPublishedExtension, isPackageName, type PublishedExtension } from "./extension-package.js";
import { hoistNestedDefinitions } from "./extension-form.js";

/**
 * `mcp-gen types --extension <name|package|file>[=<id>]`: an extension schema (JSON Schema
 * 2020-12 with `$defs`) merged into the core schema before normalisation, so that everything it
 * adds flows through the same stages as the core's own definitions. The schema is mcp-gen's own
 * (a known name), the one an installed package publishes, or a file; a published schema whose
 * definitions each carry their own `$defs` is flattened first (extension-form.ts).
 *
 * A definition the core lacks is added. One the core has is extended member by member: an
 * `anyOf` list (a union such as ClientRequest or a response's result) gains the new members,
 * a `properties` or `required` list gains new entries, and anything present on both sides
 * must be equal. Any other difference is a clash, refused in one line naming the path.
 */

/** Extensions mcp-gen knows by name, each a schema it ships; any other value is a file path. */
export const KNOWN_EXTENSIONS: Readonly<Record<string, string>> = {
  "io.modelcontextprotocol/tasks": "schemas/extensions/tasks.json",
};

export interface LoadedExtension {
  /** As given on the command line (a known name or a path). */
  given: string;
  /** The identifier the schema declares (`x-mcp-extension`). */
  id: string;
  schema: LoadedSchema;
  /** Whether mcp-gen ships the schema (a known name): only then may it hold what json-schema-to-typescript prints as code. */
  owned: boolean;
}

/** What one extension contributed, for the facts the IR derives (EXTENSIONS in capabilities.ts). */
export interface ExtensionContribution {
  id: string;
  /** Definitions the extension added or extended. */
  definitions: ReadonlySet<string>;
  /** SubscriptionFilter properties it added. */
  filterKeys: readonly string[];
}

/** The location a `--extension` value stands for: a known name's shipped schema, else the value as a path. */
export function extensionLocation(given: string): string {
  const known = KNOWN_EXTENSIONS[given];
  return known === undefined ? given : join(packageRoot, known);
}

/** A `--extension` value split into what it names and the identifier given after `=`, if any. */
export function splitExtensionValue(value: string): { name: string; id?: string } {
  const at = value.lastIndexOf("=");
  if (at <= 0 || value in KNOWN_EXTENSIONS || existsSync(value)) return { name: value };
  return { name: value.slice(0, at), id: value.slice(at + 1) };
}

/**
 * Each `--extension` value loaded: a known name (mcp-gen's own schema), an installed package
 * that publishes its schema (extension-package.ts), or a file. The identifier is the one given
 * after `=`, else the schema's `x-mcp-extension`, else the one the package declares.
 */
export async function loadExtensions(given: readonly string[], from: string = process.cwd()): Promise<LoadedExtension[]> {
  const loaded: LoadedExtension[] = [];
  for (const value of given) {
    const { name, id: flagged } = splitExtensionValue(value);
    const published = !(name in KNOWN_EXTENSIONS) && !existsSync(name) && isPackageName(name) ? publishedExtension(name, from) : undefined;
    const schema = await loadSchema(published?.schemaPath ?? extensionLocation(name));
    const declared = schema.json["x-mcp-extension"];
    const id = flagged ?? (typeof declared === "string" && declared.length > 0 ? declared : published?.id);
    if (id === undefined || id.length === 0) {
      throw new CliError(
        `${schema.location} names no extension: no identifier after "=", no "x-mcp-extension" at its top level, no EXTENSION_ID its package declares`,
        {
          hint: `pass --extension ${name}=<identifier>, or one of: ${Object.keys(KNOWN_EXTENSIONS).join(", ")}`,
        },
      );
    }
    if (loaded.some((other) => other.id === id)) throw new CliError(`extension ${id} is given twice`, { hint: "pass each --extension once" });
    loaded.push({ given: value, id, schema, owned: name in KNOWN_EXTENSIONS });
  }
  return loaded;
}

function publishedExtension(name: string, from: string): PublishedExtension {
  const found = findPublishedExtension(name, from);
  if (found === undefined) {
    throw new CliError(`extension package ${name} is not installed (no node_modules/${name} above ${from} or mcp-gen)`, {
      hint: `install it in the project (npm install ${name}) or pass the schema file`,
    });
  }
  return found;
}

type Json = unknown;
type JsonRecord = Record<string, Json>;

const isRecord = (value: Json): value is JsonRecord => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Equality of two parsed JSON values (object keys in any order). Written here rather than
 * taken from node:util: this module is on the `--check` path, and importing node:util there
 * costs more than the whole comparison ever does.
 */
function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
}

/** Keywords whose list gains the extension's entries instead of having to be equal. */
const EXTENSIBLE_LISTS = new Set(["anyOf", "required"]);

/** The core schema with every extension merged in, and what each contributed. */
export function mergeExtensions(core: LoadedSchema, extensions: readonly LoadedExtension[]): { schema: LoadedSchema; contributions: ExtensionContribution[] } {
  if (extensions.length === 0) return { schema: core, contributions: [] };
  const defs: JsonRecord = structuredClone(isRecord(core.json.$defs) ? core.json.$defs : {});
  const contributions = extensions.map((extension) => mergeOne(defs, extension));
  return { schema: { ...core, json: { ...core.json, $defs: defs } }, contributions };
}

function mergeOne(defs: JsonRecord, extension: LoadedExtension): ExtensionContribution {
  const added = extension.schema.json.$defs;
  if (!isRecord(added) || Object.keys(added).length === 0) {
    throw new CliError(`extension ${extension.id} (${extension.schema.location}) has no "$defs" object`, {
      hint: "an extension schema lists its definitions under $defs",
    });
  }
  const before = isRecord(defs.SubscriptionFilter) && isRecord(defs.SubscriptionFilter.properties) ? Object.keys(defs.SubscriptionFilter.properties) : [];
  const own = hoistNestedDefinitions(added);
  for (const [name, def] of Object.entries(own)) {
    if (!(name in defs)) defs[name] = structuredClone(def);
    else defs[name] = mergeNode(defs[name], def, `$defs.${name}`, extension);
  }
  const after = isRecord(defs.SubscriptionFilter) && isRecord(defs.SubscriptionFilter.properties) ? Object.keys(defs.SubscriptionFilter.properties) : [];
  return { id: extension.id, definitions: new Set(Object.keys(own)), filterKeys: after.filter((key) => !before.includes(key)) };
}

function mergeNode(core: Json, extension: Json, path: string, source: LoadedExtension): Json {
  if (jsonEqual(core, extension)) return core;
  if (isRecord(core) && isRecord(extension)) {
    const merged: JsonRecord = { ...core };
    for (const [key, value] of Object.entries(extension)) {
      if (!(key in core)) merged[key] = structuredClone(value);
      else if (EXTENSIBLE_LISTS.has(key) && Array.isArray(core[key]) && Array.isArray(value)) merged[key] = unionList(core[key] as Json[], value);
      else merged[key] = mergeNode(core[key], value, `${path}.${key}`, source);
    }
    return merged;
  }
  throw new CliError(
    `extension ${source.id} clashes with the core schema at ${path}: ${brief(core)} in the core, ${brief(extension)} in ${source.schema.location}`,
    {
      hint: "an extension may only add definitions, union members and properties; rename its definition",
    },
  );
}

function unionList(core: readonly Json[], extension: readonly Json[]): Json[] {
  return [...core, ...extension.filter((item) => !core.some((existing) => jsonEqual(existing, item)))];
}

function brief(value: Json): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

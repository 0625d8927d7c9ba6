import { CliError } from "../errors.js";
import type { LoadedSchema } from "./load.js";
import { sorted } from "../toolbox/sort.js";
import { commentText, isTypeName } from "../toolbox/escape.js";
import { commentSafePatterns, MAX_NESTING } from "./foreign-schema.js";

export { MAX_NESTING };

export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** A schema after normalization: its definitions by name, descriptions made safe for doc comments. */
export interface NormalizedSchema {
  definitions: Map<string, JsonObject>;
}

const DEF_REF = /^#\/\$defs\/(.+)$/;

/**
 * Names that the type generator (json-schema-to-typescript, built on plain objects) cannot
 * take as a definition or property name: `__proto__` vanishes, `hasOwnProperty` crashes it.
 * Taken from Object.prototype itself rather than listed.
 */
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/** Keywords whose object value maps property names to schemas. */
const PROPERTY_MAPS = ["properties", "patternProperties"];

/** Checks and repairs a loaded schema: names, nesting, references, reference cycles, descriptions. */
export function normalizeSchema(loaded: LoadedSchema): NormalizedSchema {
  const root = loaded.json as JsonObject;
  const defs = root.$defs;
  if (!isObject(defs) || Object.keys(defs).length === 0) {
    throw new CliError(`${loaded.location} is not a JSON Schema with definitions: it has no "$defs" object`, {
      hint: "pass an MCP protocol schema.json (2020-12 with $defs, or draft-07 with definitions)",
    });
  }
  const names = sorted(Object.keys(defs));
  const known = new Set(names);
  const definitions = new Map<string, JsonObject>();
  for (const name of names) {
    const def = defs[name];
    const at = `${loaded.location}: $defs.${name}`;
    if (PROTOTYPE_NAMES.has(name)) {
      throw new CliError(`${at} is named after an Object.prototype member, which the type generator cannot declare`, { hint: "rename the definition" });
    }
    if (!isTypeName(name)) {
      throw new CliError(`${at} is not a type name: each definition is declared as a TypeScript type of its own name`, {
        hint: "rename it in PascalCase: ASCII letters and digits, starting with a capital, a capital after a digit (ToolResult2D)",
      });
    }
    if (!isObject(def)) throw new CliError(`${at} is not a schema object`, { hint: "fix the schema or use a pinned one" });
    inspect(def, { location: loaded.location, definition: name, trail: [], known });
    definitions.set(name, repairDescriptions(def, names) as JsonObject);
  }
  refuseAliasCycles(definitions, loaded.location);
  return { definitions };
}

/** Where a walk is: the schema (for messages), the definition's name, and the keys from it down. */
interface Position {
  location: string;
  definition: string;
  /** Keys and indexes from the definition down to the node; its length is the nesting depth. */
  trail: Array<string | number>;
  known: ReadonlySet<string>;
}

/** One walk over a definition: nesting depth, property names, and that every $ref resolves. */
function inspect(node: JsonValue, position: Position): void {
  if (position.trail.length > MAX_NESTING) {
    throw new CliError(`${position.location}: $defs.${position.definition} is nested deeper than ${MAX_NESTING} levels`, {
      hint: "split it into named definitions joined by $ref",
    });
  }
  if (Array.isArray(node)) {
    node.forEach((item, index) => inspectChild(item, index, position));
    return;
  }
  if (!isObject(node)) return;
  for (const keyword of PROPERTY_MAPS) {
    const map = node[keyword];
    const clash = isObject(map) ? Object.keys(map).find((key) => PROTOTYPE_NAMES.has(key)) : undefined;
    if (clash !== undefined) {
      throw new CliError(
        `${position.location}: $defs.${position.definition} has a property named "${clash}" (at ${pathOf(position)}.${keyword}), which the type generator cannot declare`,
        { hint: "rename the property" },
      );
    }
  }
  if (typeof node.$ref === "string") {
    const target = DEF_REF.exec(node.$ref)?.[1];
    if (!target || !position.known.has(target)) {
      throw new CliError(`${position.location}: $ref ${JSON.stringify(node.$ref)} at ${pathOf(position)} points to a missing definition`, {
        hint: "add the definition to $defs or fix the reference (only #/$defs/<Name> references are supported)",
      });
    }
  }
  for (const key of Object.keys(node)) inspectChild(node[key], key, position);
}

function inspectChild(node: JsonValue, key: string | number, position: Position): void {
  position.trail.push(key);
  inspect(node, position);
  position.trail.pop();
}

/** `$defs.Tool.properties.icons`, for messages. */
function pathOf(position: Position): string {
  return `$defs.${position.definition}${position.trail.map((key) => (typeof key === "number" ? `[${key}]` : `.${key}`)).join("")}`;
}

/** Keywords whose members stand for the schema itself: a $ref there makes the definition an alias. */
const ALIAS_KEYWORDS = ["anyOf", "oneOf", "allOf"];

/** The definitions a schema is an alias of: its own $ref and those of its union and intersection members. */
function aliasTargets(node: JsonValue): string[] {
  if (!isObject(node)) return [];
  const own = refName(node);
  const members = ALIAS_KEYWORDS.flatMap((keyword) => {
    const list = node[keyword];
    return Array.isArray(list) ? list.flatMap(aliasTargets) : [];
  });
  return own === undefined ? members : [own, ...members];
}

/**
 * `A: { $ref: B }` with `B: { $ref: A }` (or the same through unions) declares type aliases
 * that name only each other, which TypeScript rejects. A $ref inside a property or an array
 * is a recursive type and fine; only alias positions count.
 */
function refuseAliasCycles(definitions: ReadonlyMap<string, JsonObject>, location: string): void {
  const done = new Set<string>();
  const visit = (name: string, trail: string[]): void => {
    const start = trail.indexOf(name);
    if (start >= 0) {
      throw new CliError(
        `${location}: the definitions ${[...trail.slice(start), name].join(" -> ")} only refer to one another (a $ref cycle with no type in it)`,
        {
          hint: "give one of them a type of its own",
        },
      );
    }
    if (done.has(name)) return;
    for (const target of sorted(new Set(aliasTargets(definitions.get(name)!)))) visit(target, [...trail, name]);
    done.add(name);
  };
  for (const name of definitions.keys()) visit(name, []);
}

/**
 * Descriptions become doc comments: repair mangled links and make sure none can end the
 * comment (toolbox/escape.ts); so do `patternProperties` keys (commentSafePatterns). Objects are rebuilt with
 * Object.fromEntries, which keeps a `__proto__` key (in a default or an example) as data
 * instead of assigning a prototype.
 */
function repairDescriptions(node: JsonValue, names: readonly string[]): JsonValue {
  if (Array.isArray(node)) return node.map((item) => repairDescriptions(item, names));
  if (!isObject(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === "description" && typeof value === "string"
        ? safeDescription(value, names)
        : key === "patternProperties" && isObject(value)
          ? (commentSafePatterns(repairDescriptions(value, names) as JsonObject) as JsonObject)
          : repairDescriptions(value, names),
    ]),
  );
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

function safeDescription(text: string, names: readonly string[]): string {
  return commentText(repairLinks(text, names));
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function refName(node: JsonValue | undefined): string | undefined {
  return isObject(node) && typeof node.$ref === "string" ? DEF_REF.exec(node.$ref)?.[1] : undefined;
}

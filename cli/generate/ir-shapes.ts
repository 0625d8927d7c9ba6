import { isObject, type JsonObject, type JsonValue } from "./normalize.js";
import type { MapsIR, Shape, ShapesIR } from "./ir-model.js";
import { sortedBy } from "../toolbox/sort.js";

type Definitions = ReadonlyMap<string, JsonObject>;

const REF = /^#\/\$defs\/(.+)$/;
/** The property that tells content blocks (and other unions of objects) apart: `{ "type": { "const": "text" } }`. */
const DISCRIMINATOR = "type";

/**
 * The shapes of what a server sends: each client request's result, each server request's and
 * server notification's params, and `InitializeResult` where the revision has it. A shape
 * says which object keys the revision defines (closed unless `additionalProperties` opens
 * it), item shapes, and unions told apart by their `type` constant; everything else is
 * `true` (taken whole). The runtime projects a newer revision's answer onto an older
 * revision's shapes, so what that revision's clients get holds only what its schema defines.
 */
export function deriveShapes(defs: Definitions, maps: MapsIR): ShapesIR {
  const deriver = new ShapeDeriver(defs);
  const paramsOf = (type: string): Shape => deriver.of(paramsNode(defs, type));
  const results = maps.clientRequests.map((entry) => ({ method: entry.method, shape: deriver.named(entry.resultType) }));
  const serverRequests = maps.serverRequests.map((entry) => ({ method: entry.method, shape: paramsOf(entry.requestType) }));
  const serverRequestTags = maps.serverRequests
    .map((entry) => ({ method: entry.method, keys: constKeys(defs, paramsNode(defs, entry.requestType)) }))
    .filter((entry) => entry.keys.length > 0);
  const serverNotifications = maps.serverNotifications.map((entry) => ({ method: entry.method, shape: paramsOf(entry.type) }));
  if (defs.has("InitializeResult")) deriver.named("InitializeResult");
  return {
    named: sortedBy(
      [...deriver.shapes].filter((entry): entry is [string, Exclude<Shape, true>] => entry[1] !== true),
      ([name]) => name,
    ).map(([name, shape]) => ({ name, shape })),
    results,
    serverRequests,
    serverRequestTags,
    serverNotifications,
  };
}

function paramsNode(defs: Definitions, type: string): JsonValue | undefined {
  const properties = defs.get(type)?.properties;
  return isObject(properties) ? properties.params : undefined;
}

/**
 * The params keys fixed by a `const` wherever they appear (directly, or in the members of a
 * union of params shapes, such as elicitation's `mode`): they say which form a request takes,
 * so an older revision that has one form only loses nothing when they are dropped.
 */
function constKeys(defs: Definitions, node: JsonValue | undefined): string[] {
  const members = objectMembers(defs, node);
  const keys = new Set<string>();
  for (const member of members) for (const [key, value] of Object.entries(member)) if (isObject(value) && value.const !== undefined) keys.add(key);
  for (const member of members)
    for (const [key, value] of Object.entries(member)) if (keys.has(key) && !(isObject(value) && value.const !== undefined)) keys.delete(key);
  return [...keys].sort();
}

/** The `properties` of a node, or of each member of its anyOf/oneOf, through $refs. */
function objectMembers(defs: Definitions, node: JsonValue | undefined): JsonObject[] {
  const resolved = isObject(node) && typeof node.$ref === "string" ? defs.get(REF.exec(node.$ref)?.[1] ?? "") : node;
  if (!isObject(resolved)) return [];
  const union = Array.isArray(resolved.anyOf) ? resolved.anyOf : Array.isArray(resolved.oneOf) ? resolved.oneOf : undefined;
  if (union !== undefined) return union.flatMap((member) => objectMembers(defs, member));
  return isObject(resolved.properties) ? [resolved.properties] : [];
}

class ShapeDeriver {
  /** Named shapes derived so far; a name being derived maps to itself, so a cycle is a reference. */
  readonly shapes = new Map<string, Shape>();
  constructor(readonly defs: Definitions) {}

  /** A definition by name: `true` inlined, anything else referenced by its name. */
  named(name: string): Shape {
    if (!this.shapes.has(name)) {
      this.shapes.set(name, name);
      this.shapes.set(name, this.of(this.defs.get(name)));
    }
    return this.shapes.get(name) === true ? true : name;
  }

  of(node: JsonValue | undefined): Shape {
    if (!isObject(node)) return true;
    if (typeof node.$ref === "string") {
      const name = REF.exec(node.$ref)?.[1];
      return name === undefined || !this.defs.has(name) ? true : this.named(name);
    }
    const members = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
    if (members !== undefined) return this.#union(members);
    if (Array.isArray(node.allOf)) return this.#merged(node.allOf, node);
    if (isObject(node.properties)) return this.#object(node);
    if (node.type === "array") {
      const items = this.of(node.items);
      return items === true ? true : { items };
    }
    return true;
  }

  #object(node: JsonObject): Shape {
    const keys: Record<string, Shape> = {};
    for (const [key, value] of Object.entries(node.properties as JsonObject)) keys[key] = this.of(value);
    return objectShape(keys, isOpen(node), requiredOf(node, keys));
  }

  /** allOf: the members' keys together (with the node's own properties). */
  #merged(parts: JsonValue[], node: JsonObject): Shape {
    const own = { properties: isObject(node.properties) ? node.properties : {}, required: node.required ?? [] };
    return this.#keysTogether(
      [...parts, own].map((part) => this.of(part)),
      isOpen(node),
      "every",
    );
  }

  /** anyOf/oneOf: objects told apart by a `type` constant, else their keys together, else anything. */
  #union(members: JsonValue[]): Shape {
    const tags = members.map((member) => this.#tagOf(member));
    if (tags.every((tag) => tag !== undefined)) {
      const byType: Record<string, Shape> = {};
      members.forEach((member, index) => (byType[tags[index]!] = this.of(member)));
      return { byType };
    }
    return this.#keysTogether(
      members.map((member) => this.of(member)),
      false,
      "one",
    );
  }

  /**
   * Object shapes as one: every key of each (open if any is); anything when one of them is not
   * an object. What it requires: what any part requires when it must match `every` part
   * (allOf), what all of them require when it need match only `one` (anyOf, oneOf).
   */
  #keysTogether(shapes: readonly Shape[], open: boolean, matches: "every" | "one"): Shape {
    const keys: Record<string, Shape> = {};
    const requiredSets: string[][] = [];
    for (const shape of shapes) {
      const object = this.#resolve(shape);
      if (object === true || !("keys" in object)) return true;
      Object.assign(keys, object.keys);
      open ||= object.open === true;
      requiredSets.push(object.required ?? []);
    }
    const required =
      matches === "every" ? [...new Set(requiredSets.flat())] : (requiredSets[0] ?? []).filter((key) => requiredSets.every((set) => set.includes(key)));
    return objectShape(keys, open, required);
  }

  /** The `type` constant of an object member of a union, looked up through a $ref. */
  #tagOf(member: JsonValue): string | undefined {
    if (!isObject(member)) return undefined;
    const name = typeof member.$ref === "string" ? REF.exec(member.$ref)?.[1] : undefined;
    const node = name === undefined ? member : this.defs.get(name);
    const tag = isObject(node) && isObject(node.properties) ? node.properties[DISCRIMINATOR] : undefined;
    if (!isObject(tag)) return undefined;
    if (typeof tag.const === "string") return tag.const;
    return Array.isArray(tag.enum) && tag.enum.length === 1 && typeof tag.enum[0] === "string" ? tag.enum[0] : undefined;
  }

  /** A named shape's own value (a name being derived counts as anything: a cycle cannot be merged). */
  #resolve(shape: Shape): Exclude<Shape, string> {
    if (typeof shape !== "string") return shape;
    const own = this.shapes.get(shape);
    return own === undefined || typeof own === "string" ? true : own;
  }
}

/** An object shape; `open` and `required` written only when they say something, so most shapes stay `{ keys }`. */
function objectShape(keys: Record<string, Shape>, open: boolean, required: readonly string[]): Shape {
  const sorted = [...required].sort();
  return { keys, ...(open ? { open: true as const } : {}), ...(sorted.length > 0 ? { required: sorted } : {}) };
}

/** The keys a node requires that it also defines (a required key without a property says nothing a check could use). */
function requiredOf(node: JsonObject, keys: Record<string, Shape>): string[] {
  return Array.isArray(node.required) ? node.required.filter((key): key is string => typeof key === "string" && key in keys) : [];
}

/** `additionalProperties` other than false (or absent) lets an object hold keys beyond its properties. */
function isOpen(node: JsonObject): boolean {
  return node.additionalProperties !== undefined && node.additionalProperties !== false;
}

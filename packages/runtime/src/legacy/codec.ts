/**
 * One codec per initialize-era revision a server serves: what a session at that revision
 * may be sent. Each revision's generated shapes.ts says which keys its results, server
 * requests and notifications define; an answer the server's handlers made for the newest
 * revision is projected onto them, so a client gets only what its own schema defines.
 * Whether a method's answers need projecting at all is decided once per method, by
 * comparing the two revisions' shapes: for the newest legacy revision most answers pass as
 * they are (only the newer revision's top-level result fields are dropped, translate.ts).
 */
import {
  RESULT_SHAPES as MODERN_RESULT_SHAPES,
  SERVER_NOTIFICATION_SHAPES as MODERN_NOTIFICATION_SHAPES,
  SHAPES as MODERN_SHAPES,
  type Shape,
} from "../protocol.js";
import { isObject, type JsonObject, type JsonRpcNotification } from "../jsonrpc.js";

/** What a revision's generated shapes.ts exports (legacy/revisions.ts binds one per revision). */
export interface RevisionShapes {
  readonly SHAPES_REVISION: string;
  readonly SHAPES: { readonly [name: string]: Shape };
  readonly RESULT_SHAPES: { readonly [method: string]: Shape };
  readonly SERVER_REQUEST_SHAPES: { readonly [method: string]: Shape };
  readonly SERVER_REQUEST_TAGS: { readonly [method: string]: readonly string[] };
  readonly SERVER_NOTIFICATION_SHAPES: { readonly [method: string]: Shape };
}

type Named = { readonly [name: string]: Shape };
type ObjectShape = { readonly keys: { readonly [key: string]: Shape }; readonly open?: true };

/** Marks an element left out of an array (a content block the revision cannot carry). */
const LEFT_OUT: unique symbol = Symbol("left out");

export class RevisionCodec {
  readonly version: string;
  /** Per method: whether its answers, once translate.ts dropped the newer top-level fields, already hold only what this revision defines. */
  readonly #resultsPass = new Map<string, boolean>();
  readonly #notificationsPass = new Map<string, boolean>();

  constructor(
    readonly shapes: RevisionShapes,
    /** Params keys that only say which form a request takes, over every revision served (`SERVER_REQUEST_TAGS`). */
    readonly tags: { readonly [method: string]: readonly string[] },
    /** Top-level result fields of the newer revision that translate.ts drops from every answer. */
    readonly droppedResultKeys: readonly string[],
  ) {
    this.version = shapes.SHAPES_REVISION;
  }

  /** Whether a client at this revision may send this request (the rest are unknown methods to it). */
  defines(method: string): boolean {
    return Object.hasOwn(this.shapes.RESULT_SHAPES, method);
  }

  /** A shared method's result, trimmed to this revision. */
  result(method: string, result: JsonObject): JsonObject {
    const shape = this.shapes.RESULT_SHAPES[method];
    if (shape === undefined) return result;
    let passes = this.#resultsPass.get(method);
    if (passes === undefined) {
      const newer = MODERN_RESULT_SHAPES[method];
      passes = newer !== undefined && covers(shape, this.shapes.SHAPES, withoutKeys(resolve(newer, MODERN_SHAPES), this.droppedResultKeys), MODERN_SHAPES);
      this.#resultsPass.set(method, passes);
    }
    return passes ? result : (project(result, shape, this.shapes.SHAPES, MODERN_RESULT_SHAPES[method], MODERN_SHAPES) as JsonObject);
  }

  /** The `initialize` result, trimmed to this revision's `InitializeResult` (capabilities and server info included). */
  initializeResult(result: JsonObject): JsonObject {
    const shape = this.shapes.SHAPES["InitializeResult"];
    return shape === undefined ? result : (project(result, shape, this.shapes.SHAPES) as JsonObject);
  }

  /** A server notification as this revision has it; undefined when the revision has no such notification. */
  notification(notification: JsonRpcNotification): JsonRpcNotification | undefined {
    const shape = this.shapes.SERVER_NOTIFICATION_SHAPES[notification.method];
    if (shape === undefined) return undefined;
    if (notification.params === undefined || this.#notificationPasses(notification.method, shape)) return notification;
    const params = project(notification.params, shape, this.shapes.SHAPES, MODERN_NOTIFICATION_SHAPES[notification.method], MODERN_SHAPES) as JsonObject;
    return params === notification.params ? notification : { ...notification, params };
  }

  /**
   * Why a client at this revision cannot be sent this request (undefined: it can): the
   * revision has no such request, or its params would lose something the revision has no
   * place for (sampling with tools before 2025-11-25, URL-mode elicitation). A dropped key
   * that only names the request's form (elicitation's `mode: "form"`) loses nothing.
   */
  requestRefusal(method: string, params: JsonObject): string | undefined {
    const shape = this.shapes.SERVER_REQUEST_SHAPES[method];
    if (shape === undefined) return `protocol revision ${this.version} has no ${method} request`;
    const dropped: string[] = [];
    project(params, shape, this.shapes.SHAPES, undefined, {}, dropped);
    const tags = new Set(this.tags[method] ?? []);
    const lost = dropped.filter((path) => !tags.has(path));
    return lost.length === 0 ? undefined : `protocol revision ${this.version}'s ${method} has no ${lost.map((path) => `"${path}"`).join(", ")}`;
  }

  /** A server request's params as this revision has them (what only names another form of the request, such as `mode: "form"`, left out). */
  requestParams(method: string, params: JsonObject): JsonObject {
    const shape = this.shapes.SERVER_REQUEST_SHAPES[method];
    return shape === undefined ? params : (project(params, shape, this.shapes.SHAPES) as JsonObject);
  }

  #notificationPasses(method: string, shape: Shape): boolean {
    let passes = this.#notificationsPass.get(method);
    if (passes === undefined) {
      const newer = MODERN_NOTIFICATION_SHAPES[method];
      passes = newer !== undefined && covers(shape, this.shapes.SHAPES, newer, MODERN_SHAPES);
      this.#notificationsPass.set(method, passes);
    }
    return passes;
  }
}

/**
 * The value with only what the older shape defines: unknown keys of a closed object left out,
 * a content block of a type the revision lacks turned into text (or left out), the rest kept.
 * The newer revision's shape, walked alongside, says what is the application's data rather
 * than protocol fields: where it leaves an object open (a tool's `inputSchema`, `_meta`,
 * `structuredContent`) or takes anything, nothing is left out, so a JSON Schema keeps its
 * `$defs` and `additionalProperties` for every client. The same value when nothing changes
 * (the common answer is not copied); `dropped` collects the dotted path of each key left out.
 */
export function project(value: unknown, older: Shape, olderNamed: Named, newer?: Shape, newerNamed: Named = {}, dropped?: string[]): unknown {
  return new Projection(olderNamed, newerNamed, dropped).value(value, older, newer, "");
}

class Projection {
  constructor(
    readonly olderNamed: Named,
    readonly newerNamed: Named,
    readonly dropped: string[] | undefined,
  ) {}

  value(value: unknown, olderShape: Shape, newerShape: Shape | undefined, path: string): unknown {
    const older = resolve(olderShape, this.olderNamed);
    const newer = newerShape === undefined ? undefined : resolve(newerShape, this.newerNamed);
    if (older === true || newer === true) return value;
    if ("items" in older)
      return Array.isArray(value) ? this.#items(value, older.items, newer !== undefined && "items" in newer ? newer.items : undefined, path) : value;
    if (!isObject(value)) return value;
    if ("byType" in older) {
      const type = value["type"];
      const member = typeof type === "string" ? older.byType[type] : undefined;
      const newerMember = typeof type === "string" && newer !== undefined && "byType" in newer ? newer.byType[type] : undefined;
      return member !== undefined ? this.value(value, member, newerMember, path) : this.#unknownMember(value, older.byType, path);
    }
    if (!("keys" in older)) return value;
    return this.#object(value, older, newer !== undefined && "keys" in newer ? newer : undefined, path);
  }

  #object(value: JsonObject, older: ObjectShape, newer: ObjectShape | undefined, path: string): JsonObject {
    const keepsUnknown = older.open === true || newer?.open === true;
    let copy: JsonObject | undefined;
    const keys = Object.keys(value);
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]!;
      const child = older.keys[key];
      const keyPath = path === "" ? key : `${path}.${key}`;
      const next = child === undefined ? (keepsUnknown ? value[key] : LEFT_OUT) : this.value(value[key], child, newer?.keys[key], keyPath);
      if (next === value[key]) {
        if (copy !== undefined) copy[key] = next;
        continue;
      }
      copy ??= copyOf(value, keys, index);
      if (next === LEFT_OUT) this.dropped?.push(keyPath);
      else copy[key] = next;
    }
    return copy ?? value;
  }

  #items(items: unknown[], older: Shape, newer: Shape | undefined, path: string): unknown[] {
    let copy: unknown[] | undefined;
    for (let index = 0; index < items.length; index++) {
      const next = this.value(items[index], older, newer, path);
      if (next === items[index]) {
        copy?.push(next);
        continue;
      }
      copy ??= items.slice(0, index);
      if (next !== LEFT_OUT) copy.push(next);
    }
    return copy ?? items;
  }

  /**
   * The one rule for a union member the revision has no type for (an audio block before
   * 2025-03-26, a resource link before 2025-06-18): where the revision has text blocks it
   * becomes one saying what it was, so the client still learns of it; elsewhere it is left out.
   */
  #unknownMember(value: JsonObject, byType: { readonly [type: string]: Shape }, path: string): unknown {
    this.dropped?.push(path === "" ? String(value["type"]) : `${path}(${String(value["type"])})`);
    const text = byType["text"];
    if (text === undefined) return LEFT_OUT;
    return this.value({ type: "text", text: describeBlock(value) }, text, undefined, path);
  }
}

/** The first `count` keys of an object, copied (defined, so a `__proto__` key stays a key). */
function copyOf(value: JsonObject, keys: readonly string[], count: number): JsonObject {
  const copy: JsonObject = {};
  for (let index = 0; index < count; index++) {
    Object.defineProperty(copy, keys[index]!, { value: value[keys[index]!], enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

function describeBlock(block: JsonObject): string {
  const named = typeof block["name"] === "string" ? block["name"] : undefined;
  if (typeof block["uri"] === "string") return named === undefined ? `Resource: ${block["uri"]}` : `Resource "${named}": ${block["uri"]}`;
  const mime = typeof block["mimeType"] === "string" ? ` (${block["mimeType"]})` : "";
  return `[${String(block["type"])} content${mime}, which this client's protocol revision cannot show]`;
}

/** Follows names to a shape of their own (an unknown name is anything). */
function resolve(shape: Shape, named: Named): Exclude<Shape, string> {
  let own: Shape | undefined = shape;
  for (let hops = 0; typeof own === "string" && hops < 64; hops++) own = named[own];
  return own === undefined || typeof own === "string" ? true : own;
}

function withoutKeys(shape: Exclude<Shape, string>, leftOut: readonly string[]): Shape {
  if (shape === true || !("keys" in shape)) return shape;
  const keys = { ...shape.keys };
  for (const key of leftOut) delete keys[key];
  return shape.open ? { keys, open: true } : { keys };
}

/**
 * Whether every value of the newer shape already holds only what the older one defines
 * (so projecting would change nothing). Recursive shapes are compared coinductively: a
 * pair met again while being compared counts as covered.
 */
export function covers(older: Shape, olderNamed: Named, newer: Shape, newerNamed: Named, seen = new Set<string>()): boolean {
  if (typeof older === "string" && typeof newer === "string") {
    const pair = `${older}\u0000${newer}`;
    if (seen.has(pair)) return true;
    seen.add(pair);
  }
  const a = resolve(older, olderNamed);
  const b = resolve(newer, newerNamed);
  if (a === true || b === true) return true; // anything, on either side, is kept whole
  if ("items" in a) return "items" in b && covers(a.items, olderNamed, b.items, newerNamed, seen);
  if ("byType" in a) {
    if (!("byType" in b)) return false;
    return Object.entries(b.byType).every(([type, member]) => a.byType[type] !== undefined && covers(a.byType[type]!, olderNamed, member, newerNamed, seen));
  }
  if (!("keys" in b)) return false;
  // Where the newer shape is open its unknown keys are the application's data, which project() keeps.
  return Object.entries(b.keys).every(([key, child]) => {
    const mine = a.keys[key];
    return mine === undefined ? a.open === true || b.open === true : covers(mine, olderNamed, child, newerNamed, seen);
  });
}

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
    return passes ? result : (project(result, shape, this.shapes.SHAPES) as JsonObject);
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
    const params = project(notification.params, shape, this.shapes.SHAPES) as JsonObject;
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
    project(params, shape, this.shapes.SHAPES, dropped);
    const tags = new Set(this.tags[method] ?? []);
    const lost = dropped.filter((path) => !tags.has(path));
    return lost.length === 0 ? undefined : `protocol revision ${this.version}'s ${method} has no ${lost.map((path) => `"${path}"`).join(", ")}`;
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
 * The value with only what the shape defines: unknown keys of a closed object left out, a
 * content block of a type the revision lacks turned into text (or left out), the rest kept.
 * The same value when nothing changes (the common answer is not copied). `dropped` collects
 * the dotted path of each key left out.
 */
export function project(value: unknown, shape: Shape, named: Named, dropped?: string[], path = ""): unknown {
  const own = resolve(shape, named);
  if (own === true) return value;
  if ("items" in own) return Array.isArray(value) ? projectItems(value, own.items, named, dropped, path) : value;
  if (!isObject(value)) return value;
  if ("byType" in own) {
    const member = typeof value["type"] === "string" ? own.byType[value["type"]] : undefined;
    return member !== undefined ? project(value, member, named, dropped, path) : unknownMember(value, own.byType, named, dropped, path);
  }
  return projectObject(value, own, named, dropped, path);
}

function projectObject(value: JsonObject, shape: ObjectShape, named: Named, dropped: string[] | undefined, path: string): JsonObject {
  let copy: JsonObject | undefined;
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const child = shape.keys[key];
    const keyPath = path === "" ? key : `${path}.${key}`;
    const next = child === undefined ? (shape.open ? value[key] : LEFT_OUT) : project(value[key], child, named, dropped, keyPath);
    if (next === value[key]) {
      if (copy !== undefined) copy[key] = next;
      continue;
    }
    copy ??= copyOf(value, keys, index);
    if (next === LEFT_OUT) dropped?.push(keyPath);
    else copy[key] = next;
  }
  return copy ?? value;
}

function projectItems(items: unknown[], shape: Shape, named: Named, dropped: string[] | undefined, path: string): unknown[] {
  let copy: unknown[] | undefined;
  for (let index = 0; index < items.length; index++) {
    const next = project(items[index], shape, named, dropped, path);
    if (next === items[index]) {
      copy?.push(next);
      continue;
    }
    copy ??= items.slice(0, index);
    if (next !== LEFT_OUT) copy.push(next);
  }
  return copy ?? items;
}

/** The first `count` keys of an object, copied (defined, so a `__proto__` key stays a key). */
function copyOf(value: JsonObject, keys: readonly string[], count: number): JsonObject {
  const copy: JsonObject = {};
  for (let index = 0; index < count; index++) {
    Object.defineProperty(copy, keys[index]!, { value: value[keys[index]!], enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/**
 * The one rule for a union member the revision has no type for (an audio block before
 * 2025-03-26, a resource link before 2025-06-18): where the revision has text blocks it
 * becomes one saying what it was, so the client still learns of it; elsewhere it is left out.
 */
function unknownMember(value: JsonObject, byType: { readonly [type: string]: Shape }, named: Named, dropped: string[] | undefined, path: string): unknown {
  dropped?.push(path === "" ? String(value["type"]) : `${path}(${String(value["type"])})`);
  const text = byType["text"];
  if (text === undefined) return LEFT_OUT;
  return project({ type: "text", text: describeBlock(value) }, text, named);
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
  if (a === true) return true;
  if (b === true) return false;
  if ("items" in a) return "items" in b && covers(a.items, olderNamed, b.items, newerNamed, seen);
  if ("byType" in a) {
    if (!("byType" in b)) return false;
    return Object.entries(b.byType).every(([type, member]) => a.byType[type] !== undefined && covers(a.byType[type]!, olderNamed, member, newerNamed, seen));
  }
  if (!("keys" in b)) return false;
  if (b.open && !a.open) return false;
  return Object.entries(b.keys).every(([key, child]) => {
    const mine = a.keys[key];
    return mine === undefined ? a.open === true : covers(mine, olderNamed, child, newerNamed, seen);
  });
}

/**
 * Stamping a stream notification with its subscription id, and its JSON text.
 *
 * One event is usually fanned out to many streams, and each copy differs from the others
 * only in the subscription id. So the text is serialised once and split around the id;
 * each stream's text is then `before + JSON(id) + after`, and wire transports write that
 * text instead of serialising every copy again. The message object is still stamped per
 * stream (in-process transports hand objects over).
 *
 * Where the id sits: with params that have no `_meta` of their own, the id is the last
 * value of the text (then come the three braces closing `_meta`, params and the message),
 * so the first stream's own text is split there; otherwise the text is built once with a
 * placeholder id and cut around it.
 *
 * The text is kept for the notification object sent last, and for the current synchronous
 * run only (a microtask clears it), so a handler that changes and resends an object on a
 * later event is never sent stale text; a sent notification is read-only anyway, as
 * in-process transports deliver the object itself. An object sent once (a handler that
 * builds a fresh one per stream) costs one serialisation, as before. Notifications without
 * params (the list_changed kinds) depend on their method alone: their text is kept for good.
 */
import { META_KEYS, SUBSCRIPTION_STREAM_METHODS } from "../protocol.js";
import { isObject, type JsonRpcNotification, type RequestId } from "../jsonrpc.js";
import type { OutgoingNotification } from "./types.js";

export const SUBSCRIPTION_ID_KEY: string = META_KEYS.subscriptionId;
const STAMPED: ReadonlySet<string> = new Set<string>(SUBSCRIPTION_STREAM_METHODS);

/** Adds the subscription id to a stream notification's `_meta`, unless one is there. */
export function stampNotification(notification: OutgoingNotification, id: RequestId): JsonRpcNotification {
  const { method, params } = notification;
  if (!needsStamp(notification)) {
    return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
  }
  // One shallow copy per stream: the same event object is fanned out to many streams.
  return { jsonrpc: "2.0", method, params: { ...params, _meta: { ...(params?.["_meta"] as object), [SUBSCRIPTION_ID_KEY]: id } } };
}

/** A stream method whose `_meta` has no subscription id yet. */
function needsStamp({ method, params }: OutgoingNotification): boolean {
  const meta = params?.["_meta"];
  return STAMPED.has(method) && !(isObject(meta) && meta[SUBSCRIPTION_ID_KEY] !== undefined);
}

/**
 * A notification's text around the subscription id. `after` is undefined when the text
 * carries no id of ours (the notification is sent unchanged): `before` is all of it.
 */
interface Template {
  readonly before: string;
  readonly after: string | undefined;
}

/** A template that cuts the text around the id. */
interface SplicedTemplate extends Template {
  readonly after: string;
}

/** Stands for the id while the text is built; it must occur exactly once to be cut around. */
const PLACEHOLDER_ID = "(subscription-id placeholder 9f2c)";
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER_ID);
/** The text cannot be cut around the id: serialise per stream. */
const UNCUT: Template = Object.freeze({ before: "", after: "" });

const paramlessTemplates = new Map<string, Template>();
/** The object with params sent last in this synchronous run: its first text and template. */
const last: {
  notification: OutgoingNotification | undefined;
  json: string;
  idLength: number;
  template: Template | undefined;
  /** Its params' keys, listed once for all the fresh objects compared with it. */
  keys: string[] | undefined;
} = {
  notification: undefined,
  json: "",
  idLength: 0,
  template: undefined,
  keys: undefined,
};

/**
 * The JSON text of `stampNotification(notification, id)`, given `idJson` (the id's own
 * JSON text, which the caller keeps per stream). Byte for byte what JSON.stringify gives;
 * the stamped object itself is built only where the text cannot be spliced.
 */
export function stampedJson(notification: OutgoingNotification, id: RequestId, idJson: string): string {
  if (notification.params === undefined) return splice(paramlessTemplate(notification.method), notification, id, idJson);
  if (notification !== last.notification && !sameText(notification, last.notification)) {
    // First sight: serialise as a transport would, and keep the text. An object sent to
    // one stream only costs nothing more; the template is made on the second sight.
    if (last.notification === undefined) queueMicrotask(forgetLast);
    last.notification = notification;
    last.keys = undefined;
    if (Object.hasOwn(notification.params, "_meta") && needsStamp(notification)) {
      // The id goes inside the object's own _meta, wherever that sits: cut around it.
      return splice((last.template = cutTemplate(notification)), notification, id, idJson);
    }
    last.template = undefined;
    lastSpliced = undefined;
    last.json = JSON.stringify(stampNotification(notification, id));
    last.idLength = idJson.length;
    return last.json;
  }
  return splice((last.template ??= templateFromFirst(notification)), notification, id, idJson);
}

/** Most keys compared when telling whether a fresh object has the text of the last one. */
const MAX_COMPARED_KEYS = 8;

/**
 * Whether `fresh` serialises exactly like `seen`: a handler that builds a new object per
 * stream (`{ method, params: { uri } }`) still gets the text made once. Only params whose
 * values are all primitives, equal, under the same keys in the same order, and no toJSON
 * or `_meta` (those take the other paths): nothing a later mutation could make stale.
 */
function sameText(fresh: OutgoingNotification, seen: OutgoingNotification | undefined): boolean {
  if (seen === undefined || fresh.method !== seen.method || seen.params === undefined) return false;
  const a = fresh.params as Record<string, unknown>;
  const b = seen.params as Record<string, unknown>;
  if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const seenKeys = (last.keys ??= Object.keys(b)); // `seen` is the last object
  if (seenKeys.length > MAX_COMPARED_KEYS) return false;
  // for-in rather than Object.keys: no array per stream. It lists the same keys in the same
  // order; an enumerable key added to Object.prototype would also come, and not match.
  let i = 0;
  for (const key in a) {
    if (key !== seenKeys[i] || key === "_meta" || key === "toJSON") return false;
    const value = a[key];
    if (value !== b[key] || (typeof value === "object" && value !== null) || typeof value === "function") return false;
    i++;
  }
  return i === seenKeys.length;
}

/** The template for the object seen last, from its first text where that text tells. */
function templateFromFirst(notification: OutgoingNotification): Template {
  const json = last.json;
  if (!needsStamp(notification)) return { before: json, after: undefined };
  if (typeof (notification.params as { toJSON?: unknown }).toJSON !== "function") {
    // `_meta` was added as the last key of params, the id as its only key: the text ends
    // with the id and three closing braces (_meta, params, message).
    return { before: json.slice(0, json.length - last.idLength - 3), after: "}}}" };
  }
  return cutTemplate(notification);
}

/** The template the last stampedJson call spliced its text from; undefined when it built the text whole. */
let lastSpliced: SplicedTemplate | undefined;

/**
 * The parts of the text the last `stampedJson` returned, when it was spliced as
 * `before + idJson + after` (the same object for every stream of the fan-out, so a
 * transport may keep their bytes); undefined otherwise.
 */
export function splicedFrom(): SplicedTemplate | undefined {
  return lastSpliced;
}

function splice(template: Template, notification: OutgoingNotification, id: RequestId, idJson: string): string {
  lastSpliced = undefined;
  if (template.after === undefined) return template.before;
  if (template === UNCUT) return JSON.stringify(stampNotification(notification, id));
  lastSpliced = template as SplicedTemplate;
  return template.before + idJson + template.after;
}

function paramlessTemplate(method: string): Template {
  let template = paramlessTemplates.get(method);
  if (template === undefined) {
    template = cutTemplate({ method });
    // Bounded: only methods a send gate let through get here.
    paramlessTemplates.set(method, template);
  }
  return template;
}

function forgetLast(): void {
  last.notification = undefined;
  last.keys = undefined;
  last.json = "";
  last.template = undefined;
}

function cutTemplate(notification: OutgoingNotification): Template {
  const json = JSON.stringify(stampNotification(notification, PLACEHOLDER_ID));
  if (!needsStamp(notification)) return { before: json, after: undefined };
  const at = json.indexOf(PLACEHOLDER_JSON);
  // Not found (a toJSON dropped it) or found twice (the content holds it too): no cut.
  if (at === -1 || json.indexOf(PLACEHOLDER_JSON, at + 1) !== -1) return UNCUT;
  return { before: json.slice(0, at), after: json.slice(at + PLACEHOLDER_JSON.length) };
}

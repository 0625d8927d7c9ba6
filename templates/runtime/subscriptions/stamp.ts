/**
 * Stamping a stream notification with its subscription id, and its JSON text.
 *
 * One event is usually fanned out to many streams, and each copy differs from the others
 * only in the subscription id. So the text is built once, with a placeholder id, and cut
 * around it; each stream's text is then `before + JSON(id) + after`, and wire transports
 * write that text instead of serialising every copy again. The message object is still
 * stamped per stream (in-process transports hand objects over).
 *
 * Cached text is keyed by the notification object and kept for the current synchronous
 * run only (a microtask clears it), so a handler that changes and resends an object on a
 * later event is never sent stale text; a sent notification is read-only anyway, as
 * in-process transports deliver the object itself. Notifications without params (the
 * list_changed kinds) depend on their method alone and keep their text for good.
 */
import { META_KEYS, SUBSCRIPTION_STREAM_METHODS } from "../../capabilities.js";
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
  return { jsonrpc: "2.0", method, params: { ...params, _meta: { ...(params?._meta as object), [SUBSCRIPTION_ID_KEY]: id } } };
}

/** A stream method whose `_meta` has no subscription id yet. */
function needsStamp({ method, params }: OutgoingNotification): boolean {
  const meta = params?._meta;
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

/** Stands for the id while the text is built; it must occur exactly once to be cut around. */
const PLACEHOLDER_ID = "\u0000subscription-id\u0000";
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER_ID);
/** The text cannot be cut (the placeholder also occurs in the content): serialise per stream. */
const UNCUT: Template = Object.freeze({ before: "", after: "" });

const paramlessTemplates = new Map<string, Template>();
let runTemplates: WeakMap<OutgoingNotification, Template> | undefined;

/**
 * The JSON text of `stampNotification(notification, id)`, given `idJson` (the id's own
 * JSON text, which the caller keeps per stream). Byte for byte what JSON.stringify gives.
 */
export function stampedJson(notification: OutgoingNotification, id: RequestId, idJson: string): string {
  const template = templateFor(notification);
  if (template.after === undefined) return template.before;
  if (template === UNCUT) return JSON.stringify(stampNotification(notification, id));
  return template.before + idJson + template.after;
}

function templateFor(notification: OutgoingNotification): Template {
  if (notification.params === undefined) {
    let template = paramlessTemplates.get(notification.method);
    if (template === undefined) {
      template = cutTemplate(notification);
      // Bounded: only methods a send gate let through get here.
      paramlessTemplates.set(notification.method, template);
    }
    return template;
  }
  const templates = (runTemplates ??= startRun());
  let template = templates.get(notification);
  if (template === undefined) {
    template = cutTemplate(notification);
    templates.set(notification, template);
  }
  return template;
}

function startRun(): WeakMap<OutgoingNotification, Template> {
  queueMicrotask(() => (runTemplates = undefined));
  return new WeakMap();
}

function cutTemplate(notification: OutgoingNotification): Template {
  const json = JSON.stringify(stampNotification(notification, PLACEHOLDER_ID));
  if (!needsStamp(notification)) return { before: json, after: undefined };
  const at = json.indexOf(PLACEHOLDER_JSON);
  if (json.indexOf(PLACEHOLDER_JSON, at + 1) !== -1) return UNCUT;
  return { before: json.slice(0, at), after: json.slice(at + PLACEHOLDER_JSON.length) };
}

/**
 * Subscription filters, generically over the generated SUBSCRIPTION_KINDS: validation of
 * a requested filter, narrowing (never widening), union, and the per-stream gate that
 * `sendNotification` consults. A kind is a boolean opt-in, a list of URIs (the notification's
 * `params.uri` names the resource) or a list of ids (`params[idParam]`, e.g. a task's id).
 */
import { SUBSCRIPTION_KINDS, type SubscriptionCapabilities, type SubscriptionFilter } from "../protocol.js";
import { isObject } from "../jsonrpc.js";

interface Kind {
  readonly filterKey: string;
  readonly value: "boolean" | "uris" | "ids";
  readonly idParam?: string;
  readonly notificationMethod: string;
  readonly handlerCapability: string;
  readonly serverCapability: readonly [string, string] | null;
}

export const KINDS: readonly Kind[] = Object.values(SUBSCRIPTION_KINDS as Readonly<Record<string, Kind>>);

/** For each list kind's notification method, the params property its list is matched against. */
export const LIST_PARAMS: ReadonlyMap<string, string> = new Map(
  KINDS.filter((kind) => kind.value !== "boolean").map((kind) => [kind.notificationMethod, kind.value === "ids" ? (kind.idParam ?? "id") : "uri"]),
);

type MutableFilter = Record<string, boolean | string[]>;

/** How many URIs or ids one list in a filter may name. */
export const MAX_LIST_ENTRIES = 1000;

/** A problem with a requested filter, phrased for the client; undefined when valid. */
export function filterProblem(value: unknown): string | undefined {
  if (!isObject(value) || Array.isArray(value)) return '"notifications" must be an object';
  for (const kind of KINDS) {
    const entry = value[kind.filterKey];
    if (entry === undefined) continue;
    if (kind.value === "boolean" && typeof entry !== "boolean") return `"notifications.${kind.filterKey}" must be a boolean`;
    if (kind.value !== "boolean" && (!Array.isArray(entry) || !entry.every((uri) => typeof uri === "string"))) {
      return `"notifications.${kind.filterKey}" must be an array of ${kind.value === "uris" ? "URI" : "id"} strings`;
    }
    if (kind.value !== "boolean" && (entry as string[]).length > MAX_LIST_ENTRIES) {
      return `"notifications.${kind.filterKey}" may name at most ${MAX_LIST_ENTRIES} entries`;
    }
  }
  return undefined;
}

/**
 * What may be honored: the request, limited to what the handler declared, and further
 * to `narrowed` when the handler narrowed. Never holds anything the request lacks.
 */
export function intersectFilter(requested: SubscriptionFilter, declared: SubscriptionCapabilities, narrowed?: SubscriptionFilter): SubscriptionFilter {
  const out: MutableFilter = {};
  const asked = requested as Record<string, unknown>;
  const narrow = narrowed as Record<string, unknown> | undefined;
  for (const kind of KINDS) {
    if ((declared as Record<string, boolean | undefined>)[kind.handlerCapability] !== true) continue;
    const wanted = asked[kind.filterKey];
    if (kind.value === "boolean") {
      if (wanted === true && (narrow === undefined || narrow[kind.filterKey] === true)) out[kind.filterKey] = true;
      continue;
    }
    if (!Array.isArray(wanted)) continue;
    const keep = narrow === undefined ? undefined : narrow[kind.filterKey];
    const allowed = Array.isArray(keep) ? new Set(keep) : undefined;
    if (narrow !== undefined && allowed === undefined) continue;
    const uris = [...new Set(wanted as string[])].filter((uri) => allowed === undefined || allowed.has(uri));
    if (uris.length > 0) out[kind.filterKey] = uris;
  }
  return out as SubscriptionFilter;
}

/** The union of several honored sets, URIs in first-seen order. */
export function unionFilters(filters: readonly SubscriptionFilter[]): SubscriptionFilter {
  const out: MutableFilter = {};
  for (const kind of KINDS) {
    const uris = new Set<string>();
    for (const filter of filters) {
      const entry = (filter as Record<string, unknown>)[kind.filterKey];
      if (entry === true) out[kind.filterKey] = true;
      else if (Array.isArray(entry)) for (const uri of entry) uris.add(uri);
    }
    if (uris.size > 0) out[kind.filterKey] = [...uris];
  }
  return out as SubscriptionFilter;
}

export function isEmptyFilter(filter: SubscriptionFilter): boolean {
  return Object.keys(filter).length === 0;
}

/** method -> true (any) or the honored URIs; read on every send. */
export type Gate = ReadonlyMap<string, true | ReadonlySet<string>>;

/** Gates without URI lists depend only on which kinds are on: one shared, read-only copy each. */
const sharedGates = new Map<string, Gate>();

export function gateFor(honored: SubscriptionFilter): Gate {
  let key = "";
  let hasUris = false;
  for (const kind of KINDS) {
    const entry = (honored as Record<string, unknown>)[kind.filterKey];
    if (entry === true) key += `${kind.filterKey},`;
    else if (Array.isArray(entry) && entry.length > 0) hasUris = true;
  }
  const shared = hasUris ? undefined : sharedGates.get(key);
  if (shared !== undefined) return shared;
  const gate = new Map<string, true | ReadonlySet<string>>();
  for (const kind of KINDS) {
    const entry = (honored as Record<string, unknown>)[kind.filterKey];
    if (entry === true) gate.set(kind.notificationMethod, true);
    else if (Array.isArray(entry) && entry.length > 0) gate.set(kind.notificationMethod, new Set(entry as string[]));
  }
  if (!hasUris) sharedGates.set(key, gate);
  return gate;
}

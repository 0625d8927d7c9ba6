/**
 * What differs between the legacy revision (2025-11-25, `initialize` sessions) and the
 * revision the server is written for, and how a legacy request and its answer are
 * translated. Method sets come from comparing the two generated maps; result fields that
 * only the newer revision has are checked against the two generated types, so a schema
 * change that adds or removes one fails the type check until this file agrees.
 */
import * as Modern from "../protocol.js";
import * as Legacy from "./protocol.js";
import { errorResponse, INTERNAL_ERROR, isObject, type JsonObject, type JsonRpcErrorObject, type JsonRpcResponse } from "../jsonrpc.js";

const COMPLETE = "complete";

/** The legacy revision these facts describe. */
export const LEGACY_VERSION: string = Legacy.PROTOCOL_VERSION;

/** The request methods both revisions share: a legacy session hands them to the same handlers. */
export type SharedMethod = Extract<Legacy.ClientRequestMethod, Modern.ClientRequestMethod>;
const MODERN_METHODS: ReadonlySet<string> = new Set(Modern.CLIENT_REQUEST_METHODS);
export const SHARED_METHODS: ReadonlySet<string> = new Set(Legacy.CLIENT_REQUEST_METHODS.filter((method) => MODERN_METHODS.has(method)));

/**
 * The legacy-only requests a session answers itself (the schemas say they exist, not
 * that the session owns them). The other legacy-only methods (tasks/*) are not served.
 */
export const SESSION_METHODS = {
  initialize: "initialize",
  ping: "ping",
  setLevel: "logging/setLevel",
  subscribe: "resources/subscribe",
  unsubscribe: "resources/unsubscribe",
} as const satisfies Record<string, Exclude<Legacy.ClientRequestMethod, Modern.ClientRequestMethod>>;

export const INITIALIZED_METHOD = "notifications/initialized" satisfies Legacy.ClientNotificationMethod;

type ModernResult<M extends SharedMethod> = Modern.ClientRequests[M]["result"];
type LegacyResult<M extends SharedMethod> = Legacy.ClientRequests[M]["result"];
/** Every result field the newer revision has and the legacy one lacks, over the shared methods. */
type ModernOnlyResultKey = { [M in SharedMethod]: Exclude<keyof ModernResult<M>, keyof LegacyResult<M>> }[SharedMethod];

/** Dropped from every result a legacy client gets (a record: the type makes it exhaustive). */
const MODERN_ONLY_RESULT_KEYS: Readonly<Record<ModernOnlyResultKey, true>> = { resultType: true, cacheScope: true, ttlMs: true };
const DROPPED_KEYS = Object.keys(MODERN_ONLY_RESULT_KEYS);

/** Reserved `_meta` keys of the newer revision (server info and the like): not the legacy client's. */
const MODERN_META_KEYS: ReadonlySet<string> = new Set(Object.values(Modern.META_KEYS));

/**
 * A resource that does not exist moved error codes between the revisions (the spec's error
 * table; the schemas do not say it): -32602 (invalid params) with the `uri` as data for a
 * newer client, -32002 for a legacy one. Only that answer moves: any other -32602 from
 * `resources/read` (malformed params, say) stays what it is.
 */
const LEGACY_RESOURCE_NOT_FOUND = -32002;

function isResourceNotFound(method: string, error: JsonRpcErrorObject): boolean {
  return (
    method === ("resources/read" satisfies SharedMethod) &&
    error.code === Modern.ERROR_CODES.InvalidParamsError &&
    isObject(error.data) &&
    typeof error.data.uri === "string"
  );
}

/**
 * A legacy request's params as the newer revision's, `_meta` replaced by the one the
 * session gives. Copied key by key, several times cheaper than a spread of a parsed
 * object; a `__proto__` key is defined, as a spread would, never assigned.
 */
export function toModernParams(params: JsonObject, meta: Readonly<JsonObject>): JsonObject {
  const copy: JsonObject = {};
  for (const key of Object.keys(params)) {
    if (key === "__proto__") Object.defineProperty(copy, key, { value: params[key], enumerable: true, writable: true, configurable: true });
    else copy[key] = params[key];
  }
  copy._meta = meta as JsonObject;
  return copy;
}

/** The legacy shape of a shared method's answer. */
export function toLegacyResponse(method: string, response: JsonRpcResponse): JsonRpcResponse {
  if ("error" in response) {
    if (!isResourceNotFound(method, response.error)) return response;
    return { ...response, error: { ...response.error, code: LEGACY_RESOURCE_NOT_FOUND } };
  }
  const kind = response.result.resultType;
  if (kind !== undefined && kind !== COMPLETE) {
    // Input-required answers were served by asking the client (input-rounds.ts); any other kind has no legacy form.
    return errorResponse(
      response.id,
      INTERNAL_ERROR,
      `${method} answered with a result of kind "${String(kind)}", which a ${LEGACY_VERSION} client cannot receive`,
    );
  }
  const result = toLegacyResult(response.result);
  return result === response.result ? response : { ...response, result };
}

/** The result without what only the newer revision has; the same object when it has none of it (the common answer is not copied). */
function toLegacyResult(result: JsonObject): JsonObject {
  if (!hasModernOnlyPart(result)) return result;
  const legacy: JsonObject = {};
  for (const key of Object.keys(result)) if (!Object.hasOwn(MODERN_ONLY_RESULT_KEYS, key) && key !== "_meta") legacy[key] = result[key];
  if (isObject(result._meta)) {
    const meta = Object.fromEntries(Object.entries(result._meta).filter(([key]) => !MODERN_META_KEYS.has(key)));
    if (Object.keys(meta).length > 0) legacy._meta = meta;
  } else if (result._meta !== undefined) legacy._meta = result._meta;
  return legacy;
}

function hasModernOnlyPart(result: JsonObject): boolean {
  if (result._meta !== undefined) return true;
  for (const key of DROPPED_KEYS) if (key in result) return true;
  return false;
}

/** Top-level legacy `ServerCapabilities` keys (a record: the type makes it exhaustive). */
const LEGACY_CAPABILITY_KEYS: Readonly<Record<keyof Legacy.ServerCapabilities, true>> = {
  completions: true,
  experimental: true,
  logging: true,
  prompts: true,
  resources: true,
  tasks: true,
  tools: true,
};

/** What `initialize` advertises: the server's capabilities the legacy schema knows (`logging` by the same rule as server/discover, see discover.ts). */
export function toLegacyCapabilities(capabilities: Modern.ServerCapabilities): Legacy.ServerCapabilities {
  const legacy: JsonObject = {};
  for (const [key, value] of Object.entries(capabilities)) {
    if (Object.hasOwn(LEGACY_CAPABILITY_KEYS, key)) legacy[key] = value;
  }
  return legacy as Legacy.ServerCapabilities;
}

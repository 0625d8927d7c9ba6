/**
 * What differs between the initialize-era revisions (one codec each, codec.ts) and the
 * revision the server is written for, and how a legacy request and its answer are
 * translated. Method sets come from comparing the generated maps; result fields that only
 * the newer revision has are checked against the generated types of the newest legacy
 * revision, so a schema change that adds or removes one fails the type check until this
 * file agrees; the rest of the difference comes from each revision's shapes.
 */
import * as Modern from "../protocol.js";
import * as Legacy from "./protocol.js";
import { errorResponse, INTERNAL_ERROR, isObject, type JsonObject, type JsonRpcErrorObject, type JsonRpcResponse } from "../jsonrpc.js";
import { RevisionCodec } from "./codec.js";
import { LEGACY_REVISIONS } from "./revisions.js";

const COMPLETE = "complete";

/** The request methods the newest legacy revision shares with the newer one: a legacy session hands them to the same handlers. */
export type SharedMethod = Extract<Legacy.ClientRequestMethod, Modern.ClientRequestMethod>;
const MODERN_METHODS: ReadonlySet<string> = new Set(Modern.CLIENT_REQUEST_METHODS);

/** Whether a session at this codec's revision hands the request to the server's handlers. */
export function isSharedMethod(codec: RevisionCodec, method: string): boolean {
  return MODERN_METHODS.has(method) && codec.defines(method);
}

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

/** Params keys that only name a request's form, gathered over every revision served (elicitation's `mode`). */
const REQUEST_TAGS: { [method: string]: string[] } = {};
for (const revision of LEGACY_REVISIONS) {
  for (const [method, keys] of Object.entries(revision.SERVER_REQUEST_TAGS)) REQUEST_TAGS[method] = [...new Set([...(REQUEST_TAGS[method] ?? []), ...keys])];
}

/** One codec per initialize-era revision the runtime has facts for, newest first. */
export const LEGACY_CODECS: readonly RevisionCodec[] = LEGACY_REVISIONS.map((revision) => new RevisionCodec(revision, REQUEST_TAGS, DROPPED_KEYS)).sort(
  (a, b) => (a.version < b.version ? 1 : a.version > b.version ? -1 : 0),
);

/** The initialize-era revisions the runtime serves by default, newest first. */
export const LEGACY_VERSIONS: readonly string[] = LEGACY_CODECS.map((codec) => codec.version);

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
    typeof error.data["uri"] === "string"
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
  copy["_meta"] = meta as JsonObject;
  return copy;
}

/** The shape a shared method's answer takes for a client at the codec's revision. */
export function toLegacyResponse(codec: RevisionCodec, method: string, response: JsonRpcResponse): JsonRpcResponse {
  if ("error" in response) {
    if (!isResourceNotFound(method, response.error)) return response;
    return { ...response, error: { ...response.error, code: LEGACY_RESOURCE_NOT_FOUND } };
  }
  const kind = response.result["resultType"];
  if (kind !== undefined && kind !== COMPLETE) {
    // Input-required answers were served by asking the client (input-rounds.ts); any other kind has no legacy form.
    return errorResponse(
      response.id,
      INTERNAL_ERROR,
      `${method} answered with a result of kind "${String(kind)}", which a ${codec.version} client cannot receive`,
    );
  }
  const result = codec.result(method, toLegacyResult(response.result));
  return result === response.result ? response : { ...response, result };
}

/** The result without what only the newer revision has; the same object when it has none of it (the common answer is not copied). */
function toLegacyResult(result: JsonObject): JsonObject {
  if (!hasModernOnlyPart(result)) return result;
  const legacy: JsonObject = {};
  for (const key of Object.keys(result)) if (!Object.hasOwn(MODERN_ONLY_RESULT_KEYS, key) && key !== "_meta") legacy[key] = result[key];
  if (isObject(result["_meta"])) {
    const meta = Object.fromEntries(Object.entries(result["_meta"]).filter(([key]) => !MODERN_META_KEYS.has(key)));
    if (Object.keys(meta).length > 0) legacy["_meta"] = meta;
  } else if (result["_meta"] !== undefined) legacy["_meta"] = result["_meta"];
  return legacy;
}

function hasModernOnlyPart(result: JsonObject): boolean {
  if (result["_meta"] !== undefined) return true;
  for (const key of DROPPED_KEYS) if (key in result) return true;
  return false;
}

/**
 * What `initialize` answers a client at the codec's revision: the server's capabilities
 * (`logging` by the same rule as server/discover, see discover.ts), info and instructions,
 * with only what that revision's `InitializeResult` defines.
 */
export function initializeResult(
  codec: RevisionCodec,
  capabilities: Modern.ServerCapabilities,
  info: Modern.Implementation,
  instructions: string | undefined,
): JsonObject {
  const result: Record<string, unknown> = { protocolVersion: codec.version, capabilities, serverInfo: info };
  if (instructions !== undefined) result["instructions"] = instructions;
  return codec.initializeResult(result as JsonObject);
}

/**
 * The per-request `_meta` checks every request passes before its handler runs: `_meta`
 * itself, the protocol version and the client capabilities must be there, the version
 * must be one the server supports, and the optional log level and progress token must
 * have the schema's shape (request-scoped notifications rely on them). Then the transport's
 * facts are merged in, and the keys a transport owns never come from the client.
 */
import { ERROR_CODES, META_KEYS } from "./protocol.js";
import { errorResponse, INVALID_PARAMS, isObject, type JsonRpcErrorResponse, type JsonRpcRequest } from "./jsonrpc.js";
import type { MessageContext } from "./transport.js";
import { isLoggingLevel, LOG_LEVEL_SEVERITY, PROGRESS_TOKEN_KEY, type HandlerMeta } from "./request-notifications.js";

const PROTOCOL_VERSION_KEY: string = META_KEYS.protocolVersion;
const CLIENT_CAPABILITIES_KEY: string = META_KEYS.clientCapabilities;
const LOG_LEVEL_KEY: string = META_KEYS.logLevel;
const UNSUPPORTED_VERSION: number = ERROR_CODES.UnsupportedProtocolVersionError;

/** The error response for a request whose `_meta` fails the checks, or undefined. */
export function checkRequestMeta(request: JsonRpcRequest, supportedVersions: readonly string[]): JsonRpcErrorResponse | undefined {
  const meta = request.params?.["_meta"];
  if (!isObject(meta) || Array.isArray(meta)) {
    return errorResponse(request.id, INVALID_PARAMS, `Invalid params: "params._meta" is required on every request`);
  }
  const version = meta[PROTOCOL_VERSION_KEY];
  if (typeof version !== "string") {
    return errorResponse(request.id, INVALID_PARAMS, `Invalid params: "_meta" must name "${PROTOCOL_VERSION_KEY}"`);
  }
  const capabilities = meta[CLIENT_CAPABILITIES_KEY];
  if (!isObject(capabilities) || Array.isArray(capabilities)) {
    return errorResponse(request.id, INVALID_PARAMS, `Invalid params: "_meta" must carry "${CLIENT_CAPABILITIES_KEY}" (an object)`);
  }
  if (!supportedVersions.includes(version)) {
    return errorResponse(request.id, UNSUPPORTED_VERSION, `Unsupported protocol version "${version}"`, {
      supported: [...supportedVersions],
      requested: version,
    });
  }
  if (meta[LOG_LEVEL_KEY] !== undefined && !isLoggingLevel(meta[LOG_LEVEL_KEY])) {
    return errorResponse(request.id, INVALID_PARAMS, `Invalid params: "${LOG_LEVEL_KEY}" must be one of ${Object.keys(LOG_LEVEL_SEVERITY).join(", ")}`);
  }
  const token = meta[PROGRESS_TOKEN_KEY];
  if (token !== undefined && typeof token !== "string" && !Number.isInteger(token)) {
    return errorResponse(request.id, INVALID_PARAMS, `Invalid params: "_meta.${PROGRESS_TOKEN_KEY}" must be a string or an integer`);
  }
  return undefined;
}

/**
 * The `_meta` keys only a transport may set: they are not in the schema, so the list is
 * ours. A client-sent value is dropped whether or not the transport supplied a context;
 * otherwise an anonymous caller could claim `principal: "admin"`.
 */
export const TRANSPORT_META_KEYS: readonly string[] = Object.freeze(["principal"]);

/** Declared beside the request scope that takes it (request-notifications.ts), so that module needs nothing of this one. */
export type { HandlerMeta };

/**
 * The request `_meta` with what the transport knows merged in: the client's keys, less the
 * transport's own; then `fixed` (what a legacy session negotiated, which wins over the
 * client); then the transport's facts, which win over both.
 */
export function mergeMeta(
  meta: Readonly<Record<string, unknown>>,
  context: MessageContext | undefined,
  fixed?: Readonly<Record<string, unknown>>,
): HandlerMeta {
  const merged: Record<string, unknown> = fixed === undefined ? { ...meta } : { ...meta, ...fixed };
  for (const key of TRANSPORT_META_KEYS) delete merged[key];
  if (context !== undefined) Object.assign(merged, context);
  return Object.freeze(merged) as HandlerMeta;
}

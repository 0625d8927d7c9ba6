/**
 * Whether a listen request is let in, decided before any subscription handler sees it: its
 * filter is well formed and declares what it needs, what the stream would keep of the request
 * fits the bounds, and a listen slot is free (which it then holds).
 */
import { ERROR_CODES } from "../protocol.js";
import { undeclaredFilterKey } from "../extensions.js";
import { errorResponse, INTERNAL_ERROR, INVALID_PARAMS, type JsonRpcRequest, type JsonRpcResponse } from "../jsonrpc.js";
import type { HandlerMeta } from "../meta.js";
import { filterProblem } from "./filter.js";
import { slotRefusalMessage, type ClientKey, type StreamSlots } from "./slots.js";

const MISSING_CAPABILITY: number = (ERROR_CODES as Readonly<Record<string, number>>)["MissingRequiredClientCapabilityError"] ?? -32021;

/** What admission needs from the server. */
export interface AdmissionHost {
  /** Listen slots, server-wide and per client. */
  readonly slots: StreamSlots;
  /** What one listen stream may keep of its request (filter and `_meta`), in bytes as held in memory. */
  readonly maxListenRequestBytes: number;
}

/**
 * The error a listen request gets before any handler sees it (a bad filter, too much kept,
 * no free slot), or undefined with a slot reserved that keeps `kept` bytes.
 */
export function listenRefusal(host: AdmissionHost, request: JsonRpcRequest, meta: HandlerMeta, client: ClientKey, kept: number): JsonRpcResponse | undefined {
  const filter = request.params?.["notifications"];
  const problem = filterProblem(filter);
  if (problem !== undefined) return errorResponse(request.id, INVALID_PARAMS, `Invalid params: ${problem}`);
  const undeclared = undeclaredFilterKey(filter, meta);
  if (undeclared !== undefined) {
    const message = `"notifications.${undeclared.key}" needs the ${undeclared.id} extension: declare it in _meta clientCapabilities.extensions`;
    return errorResponse(request.id, MISSING_CAPABILITY, message, { requiredCapabilities: { extensions: { [undeclared.id]: {} } } });
  }
  if (kept > host.maxListenRequestBytes) {
    const message = `Invalid params: a listen request may keep at most ${host.maxListenRequestBytes} bytes of its notifications filter and _meta (this one ${kept})`;
    return errorResponse(request.id, INVALID_PARAMS, message);
  }
  const refusal = host.slots.reserve(client, kept);
  return refusal === undefined ? undefined : errorResponse(request.id, INTERNAL_ERROR, slotRefusalMessage(refusal));
}

/**
 * What a stream keeps of its listen request: the filter and the merged `_meta`, as JSON
 * text held in memory (two bytes a character). A `_meta` the transport vouches for (a
 * principal object that is not JSON) counts as nothing rather than failing the listen.
 */
export function keptRequestBytes(filter: unknown, meta: HandlerMeta): number {
  let characters = 0;
  for (const part of [filter, meta]) {
    try {
      characters += JSON.stringify(part)?.length ?? 0;
    } catch {
      // a cycle or a bigint in a transport-given value: not the client's bytes
    }
  }
  return 2 * characters;
}

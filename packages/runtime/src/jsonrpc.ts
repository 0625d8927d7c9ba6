/**
 * JSON-RPC 2.0 framing: the message shapes, decoding of wire text, and the checks that
 * tell a request from a notification or a response. Nothing here is version-specific
 * beyond the error codes, which come from the generated map.
 */
import { ERROR_CODES } from "./protocol.js";

export type RequestId = string | number;
export type JsonObject = { [key: string]: unknown };

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: JsonObject;
}
export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: JsonObject;
}
export interface JsonRpcResultResponse {
  jsonrpc: "2.0";
  id: RequestId;
  result: JsonObject;
}
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
export interface JsonRpcErrorResponse {
  jsonrpc: "2.0";
  id?: RequestId | null;
  error: JsonRpcErrorObject;
}
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** Standard codes, read from the schema's error definitions. */
export const PARSE_ERROR: number = ERROR_CODES.ParseError;
export const INVALID_REQUEST: number = ERROR_CODES.InvalidRequestError;
export const METHOD_NOT_FOUND: number = ERROR_CODES.MethodNotFoundError;
export const INVALID_PARAMS: number = ERROR_CODES.InvalidParamsError;
export const INTERNAL_ERROR: number = ERROR_CODES.InternalError;

/** An error a request handler throws to choose the JSON-RPC error it answers with. */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "McpError";
  }
}

/** What a received message turned out to be; `invalid` carries the error to answer with. */
export type Classified =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "response"; message: JsonRpcResponse }
  | { kind: "invalid"; id: RequestId | null; error: JsonRpcErrorObject };

/** Decodes wire text (or passes an object through) and classifies it. */
export function classifyMessage(incoming: unknown): Classified {
  if (typeof incoming !== "string") return classifyValue(incoming);
  let value: unknown;
  try {
    value = JSON.parse(incoming);
  } catch {
    return invalid(null, PARSE_ERROR, "Parse error: the message is not valid JSON");
  }
  return classifyValue(value);
}

/**
 * Classifies an already decoded value. Never decodes again: a JSON string holding a
 * request is a string, not a request (decoding twice would run what was sent as data).
 */
export function classifyValue(value: unknown): Classified {
  if (!isObject(value) || Array.isArray(value)) {
    return invalid(null, INVALID_REQUEST, "Invalid request: a message must be a JSON object");
  }
  const id = isRequestId(value["id"]) ? value["id"] : null;
  if (value["jsonrpc"] !== "2.0") return invalid(id, INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"');
  if ("method" in value) {
    if (typeof value["method"] !== "string") return invalid(id, INVALID_REQUEST, 'Invalid request: "method" must be a string');
    if (value["params"] !== undefined && (!isObject(value["params"]) || Array.isArray(value["params"]))) {
      return invalid(id, INVALID_REQUEST, 'Invalid request: "params" must be an object');
    }
    if (!("id" in value)) return { kind: "notification", message: value as unknown as JsonRpcNotification };
    if (!isRequestId(value["id"])) return invalid(null, INVALID_REQUEST, 'Invalid request: "id" must be a string or a number');
    return { kind: "request", message: value as unknown as JsonRpcRequest };
  }
  if ("result" in value || "error" in value) return { kind: "response", message: value as unknown as JsonRpcResponse };
  return invalid(id, INVALID_REQUEST, 'Invalid request: no "method", "result" or "error"');
}

/** Parses wire text into a message, throwing on anything that is not JSON-RPC. */
export function parseMessage(incoming: unknown): JsonRpcMessage {
  const classified = classifyMessage(incoming);
  if (classified.kind === "invalid") throw new McpError(classified.error.code, classified.error.message);
  return classified.message;
}

export function errorResponse(id: RequestId | null, code: number, message: string, data?: unknown): JsonRpcErrorResponse {
  const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: "2.0", id, error };
}

/**
 * What `onEvent` gets (as a transport error) for a client's answer that no request of this
 * server waits for: over stdio there is no one to refuse it to, so it is dropped and reported.
 */
export function droppedAnswer(response: JsonRpcResponse): Error {
  return new Error(`dropped an answer to request id ${JSON.stringify(response.id)}: the server is waiting for no answer with that id`);
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null;
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

function invalid(id: RequestId | null, code: number, message: string): Classified {
  return { kind: "invalid", id, error: { code, message } };
}

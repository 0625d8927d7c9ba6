/**
 * What the Streamable HTTP transport checks before a message reaches the server core:
 * the verb, the Origin, the body size, the JSON itself, and the MCP request headers
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) against the body. Each check either
 * passes or yields an `HttpRejection`: the status and body to answer with, nothing parsed
 * further. The core then does the checks that do not depend on HTTP (`_meta`, methods).
 */
import { ERROR_CODES, META_KEYS } from "../protocol.js";
import { NAME_PARAMS } from "../extensions.js";
import { classifyValue, errorResponse, type JsonRpcMessage, type JsonRpcResponse, type RequestId } from "../jsonrpc.js";
import { utf8Length, type HeaderSource, type HttpResponse } from "./http-io.js";
import { BodyLimits, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_TOTAL_BODY_BYTES, type HttpRejection, type ParsedBody } from "./http-body.js";

export { BodyLimits, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_TOTAL_BODY_BYTES, type HttpRejection, type ParsedBody };

/** Answers a refused request: its status, headers and JSON-RPC error, with nothing streamed. */
export function writeRejection(res: HttpResponse, rejection: HttpRejection): void {
  res.end(writeRejectionHead(res, rejection));
}

/** An answer without a body: a preflight's 204, an accepted notification's 202. */
export function answerEmpty(res: HttpResponse, status: number, headers?: Readonly<Record<string, string>>): void {
  res.writeHead(status, headers);
  res.end();
}

/** Writes a rejection's status and headers; returns its body text, to be written next. */
export function writeRejectionHead(res: HttpResponse, rejection: HttpRejection): string {
  const text = rejection.body === undefined ? "" : JSON.stringify(rejection.body);
  res.writeHead(rejection.status, {
    ...(text ? { "content-type": "application/json" } : {}),
    "content-length": utf8Length(text),
    ...rejection.headers,
  });
  return text;
}

const BASE64_PREFIX = "=?base64?";
const BASE64_SUFFIX = "?=";
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The HTTP status for a JSON-RPC error the server core produced (the spec pins these). */
export function statusForErrorCode(code: number): number {
  if (code === ERROR_CODES.MethodNotFoundError) return 404;
  if (
    code === ERROR_CODES.ParseError ||
    code === ERROR_CODES.InvalidRequestError ||
    code === ERROR_CODES.InvalidParamsError ||
    code === ERROR_CODES.HeaderMismatchError ||
    code === ERROR_CODES.UnsupportedProtocolVersionError ||
    code === ERROR_CODES.MissingRequiredClientCapabilityError
  ) {
    return 400;
  }
  return 200; // ordinary application errors travel on 200, like results
}

/** Origins a localhost-bound server accepts by default: the same machine, any port. */
export function isLocalhostOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  return url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
}

/**
 * `undefined` when the Origin is absent (not a browser) or allowed; a 403 otherwise, whose
 * message says how to allow one: the person reading it in a browser's console is often the
 * one who runs the server. `allowed` is an exact list of origins, `"*"` for any, or a predicate.
 */
export function checkOrigin(origin: string | undefined, allowed: readonly string[] | "*" | ((origin: string) => boolean)): HttpRejection | undefined {
  if (origin === undefined || allowed === "*") return undefined;
  const ok = typeof allowed === "function" ? allowed(origin) : allowed.includes(origin);
  if (ok) return undefined;
  return { status: 403, body: errorResponse(null, ERROR_CODES.InvalidRequestError, refusedOriginMessage(origin)) };
}

function refusedOriginMessage(origin: string): string {
  return `Origin ${origin} is not allowed: the server allows it once listed in its allowedOrigins option (MCP_ALLOWED_ORIGINS in a project made by create-mcp-handler)`;
}

/** Only POST carries MCP messages since 2026-07-28: no GET stream, no DELETE of a session. */
export function checkVerb(method: string | undefined): HttpRejection | undefined {
  if (method === "POST") return undefined;
  return {
    status: 405,
    headers: { allow: "POST" },
    body: errorResponse(null, ERROR_CODES.InvalidRequestError, `HTTP ${method ?? "?"} is not supported; send each message as a POST`),
  };
}

/**
 * What a POST's headers say about its body and the answer it takes (Streamable HTTP): the
 * body must be JSON, not encoded (415: it is read as UTF-8 JSON as sent, a gzip body would
 * fail as a parse error that hides the cause), and the client must take JSON or an event
 * stream, the two forms an answer comes in (406). No Accept header takes anything.
 */
export function checkPostHeaders(headers: HeaderSource): HttpRejection | undefined {
  // What every client sends, answered without parsing (this runs on every POST).
  const contentType = headers.get("content-type");
  const accept = headers.get("accept");
  if (contentType === "application/json" && COMMON_ACCEPTS.has(accept) && (headers.get("content-encoding") ?? undefined) === undefined) return undefined;
  return checkPostHeadersInFull(headers);
}

/** The Accept values clients send most, each taking both answer forms. */
const COMMON_ACCEPTS = new Set<string | null | undefined>(["application/json, text/event-stream", "text/event-stream, application/json"]);

function checkPostHeadersInFull(headers: HeaderSource): HttpRejection | undefined {
  const encoding = header(headers, "content-encoding")?.toLowerCase();
  if (encoding !== undefined && encoding !== "" && encoding !== "identity") {
    return unsupported(415, `Content-Encoding "${encoding.slice(0, 64)}" is not supported; send the body unencoded`);
  }
  const type = header(headers, "content-type");
  if (type === undefined || mediaType(type) !== "application/json") {
    return unsupported(415, `Content-Type ${type === undefined ? "is missing" : `"${type.slice(0, 64)}" is not supported`}; send application/json`);
  }
  const accept = header(headers, "accept");
  if (accept !== undefined && !ANSWER_TYPES.some((answer) => accepts(accept, answer))) {
    return unsupported(406, "Accept must take application/json or text/event-stream (the forms an answer comes in)");
  }
  return undefined;
}

const ANSWER_TYPES = ["application/json", "text/event-stream"];

function unsupported(status: 406 | 415, message: string): HttpRejection {
  return { status, body: errorResponse(null, ERROR_CODES.InvalidRequestError, message) };
}

/** A header's media type without its parameters, lower case. */
function mediaType(value: string): string {
  const end = value.indexOf(";");
  return (end < 0 ? value : value.slice(0, end)).trim().toLowerCase();
}

/** Whether an Accept header takes `type` (`type/subtype`): a matching range (wildcards included) whose q is not 0. */
function accepts(accept: string, type: string): boolean {
  const major = type.slice(0, type.indexOf("/"));
  return accept.split(",").some((range) => {
    const [name = "", ...params] = range.split(";");
    const media = name.trim().toLowerCase();
    if (media !== type && media !== `${major}/*` && media !== "*/*") return false;
    const q = params.find((param) => param.trim().toLowerCase().startsWith("q="));
    return q === undefined || Number(q.trim().slice(2)) > 0;
  });
}

/** After a 413, how long the rest of the body is read and dropped before the connection is closed. */
export const BODY_DISCARD_MS = 2000;

export function tooLarge(limit: number): HttpRejection {
  return {
    status: 413,
    body: errorResponse(null, ERROR_CODES.InvalidRequestError, `request body exceeds ${limit} bytes`),
  };
}

/** What a client refused for the body budget is told to wait before it sends again, in seconds. */
const BODY_BUDGET_RETRY_AFTER = "1";

export function overBudget(limits: BodyLimits): HttpRejection {
  return {
    status: 503,
    headers: { "retry-after": BODY_BUDGET_RETRY_AFTER },
    body: errorResponse(
      null,
      ERROR_CODES.InternalError,
      `the server is reading too many request bodies at once (maxTotalBodyBytes ${limits.maxTotalBodyBytes}); retry later`,
    ),
  };
}

export function tooSlow(limits: BodyLimits): HttpRejection {
  return {
    status: 408,
    headers: { connection: "close" },
    body: errorResponse(null, ERROR_CODES.InvalidRequestError, `request body not complete within ${limits.bodyTimeoutMs} ms (bodyTimeoutMs)`),
  };
}

/**
 * One JSON-RPC message, decoded and classified. Batches were removed from the protocol, so
 * an array is refused with its own message; anything else invalid gets the core's answer.
 */
export function parseBody(text: string): ParsedBody | HttpRejection {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { status: 400, body: errorResponse(null, ERROR_CODES.ParseError, `Parse error: ${detail}`) };
  }
  if (Array.isArray(value)) {
    return {
      status: 400,
      body: errorResponse(null, ERROR_CODES.InvalidRequestError, "JSON-RPC batches are not supported; send one message per POST"),
    };
  }
  const classified = classifyValue(value); // decoded once: a JSON string stays a string
  if (classified.kind === "invalid") {
    return { status: 400, body: errorResponse(classified.id, classified.error.code, classified.error.message) };
  }
  return classified;
}

/**
 * A JSON-RPC response POSTed by a client. The 2026-07-28 server sends the client no
 * requests, and the Streamable HTTP page says the client MUST NOT send responses, so every
 * one is refused. A legacy session (earlier revisions) answering the server's own requests
 * is the one place that accepts some: it checks the id against its open requests before
 * this refusal.
 */
export function refuseClientResponse(response: JsonRpcResponse): HttpRejection {
  const id = response.id ?? null;
  return {
    status: 400,
    body: errorResponse(id, ERROR_CODES.InvalidRequestError, "Invalid request: a client must not send JSON-RPC responses to this server"),
  };
}

/**
 * Decodes an `Mcp-*` header value: `=?base64?...?=` is Base64 over UTF-8 (strict alphabet
 * and padding), anything else is literal. `undefined` when the Base64 form is malformed.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX) && value.length >= BASE64_PREFIX.length + BASE64_SUFFIX.length)) {
    return value;
  }
  const payload = value.slice(BASE64_PREFIX.length, value.length - BASE64_SUFFIX.length);
  if (!STRICT_BASE64.test(payload)) return undefined;
  return decodeBase64Utf8(payload);
}

/** Whether a header value must travel in the Base64 form (not plain visible ASCII, or ambiguous). */
export function encodeHeaderValue(value: string): string {
  const plain = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !value.startsWith(BASE64_PREFIX);
  return plain ? value : `${BASE64_PREFIX}${encodeBase64Utf8(value)}${BASE64_SUFFIX}`;
}

// Base64 through atob/btoa, which every runtime has (the fetch path has no Buffer to count on).
function decodeBase64Utf8(payload: string): string {
  const binary = atob(payload);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

function encodeBase64Utf8(value: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * What `Mcp-Name` mirrors: the params property an extension names for the method (the
 * generated `nameParams`, e.g. a task's `taskId`), else the top-level `params.name`, else
 * `params.uri` (tools, prompts, resources).
 */
export function nameOf(params: unknown, method?: string): string | undefined {
  if (params === null || typeof params !== "object") return undefined;
  const named = method === undefined ? undefined : NAME_PARAMS.get(method);
  if (named !== undefined) {
    const value = (params as Record<string, unknown>)[named];
    return typeof value === "string" ? value : undefined;
  }
  const { name, uri } = params as { name?: unknown; uri?: unknown };
  if (typeof name === "string") return name;
  return typeof uri === "string" ? uri : undefined;
}

/**
 * The headers a client sends with one message (SEP-2243): `Mcp-Method`, `Mcp-Name` (Base64
 * form when needed) and `MCP-Protocol-Version` mirrored from the body, plus the content
 * types of a Streamable HTTP POST.
 */
export function mcpRequestHeaders(message: JsonRpcMessage): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (!("method" in message)) return headers;
  headers["mcp-method"] = message.method;
  const name = nameOf(message.params, message.method);
  if (name !== undefined) headers["mcp-name"] = encodeHeaderValue(name);
  const version = (message.params?.["_meta"] as Record<string, unknown> | undefined)?.[META_KEYS.protocolVersion];
  if (typeof version === "string") headers["mcp-protocol-version"] = version;
  return headers;
}

function nameField(method: string | undefined): string {
  const named = method === undefined ? undefined : NAME_PARAMS.get(method);
  return named === undefined ? "name or uri" : `params.${named}`;
}

function header(headers: HeaderSource, name: string): string | undefined {
  return headers.get(name)?.trim() ?? undefined;
}

function mismatch(id: RequestId | null, message: string): HttpRejection {
  return { status: 400, body: errorResponse(id, ERROR_CODES.HeaderMismatchError, message) };
}

/**
 * Checks the MCP request headers against the body (SEP-2243). A request must name its
 * method in `Mcp-Method`, its tool, prompt or resource in `Mcp-Name`, and its protocol
 * version in `MCP-Protocol-Version`, each equal to the body's value. Notifications and
 * responses are checked only for the headers they carry. Whether the version is one the
 * server speaks is the core's question (-32022), asked once the two agree.
 */
export function checkMcpHeaders(headers: HeaderSource, message: JsonRpcMessage): HttpRejection | undefined {
  const isRequest = "method" in message && "id" in message;
  const id = isRequest ? message.id : null;
  const method = "method" in message ? message.method : undefined;
  const params = "params" in message ? (message.params as { _meta?: Record<string, unknown> } | undefined) : undefined;

  const methodHeader = header(headers, "mcp-method");
  if (method !== undefined && (methodHeader !== undefined || isRequest)) {
    if (methodHeader === undefined) return mismatch(id, `missing Mcp-Method header; set it to "${method}"`);
    if (methodHeader !== method) return mismatch(id, `Mcp-Method header "${methodHeader}" does not match the body method "${method}"`);
  }

  const name = nameOf(params, method);
  const nameHeader = header(headers, "mcp-name");
  if (name !== undefined && (nameHeader !== undefined || isRequest)) {
    if (nameHeader === undefined) return mismatch(id, `missing Mcp-Name header; set it to the request's ${nameField(method)}`);
    const decoded = decodeHeaderValue(nameHeader);
    if (decoded === undefined) return mismatch(id, "Mcp-Name header has a malformed =?base64?...?= value");
    if (decoded !== name) return mismatch(id, `Mcp-Name header does not match the body's ${nameField(method)}`);
  }

  const bodyVersion = params?._meta?.[META_KEYS.protocolVersion];
  const versionHeader = header(headers, "mcp-protocol-version");
  if (typeof bodyVersion === "string" && (versionHeader !== undefined || isRequest)) {
    if (versionHeader === undefined) return mismatch(id, `missing MCP-Protocol-Version header; set it to "${bodyVersion}"`);
    if (versionHeader !== bodyVersion) {
      return mismatch(id, `MCP-Protocol-Version header "${versionHeader}" does not match _meta protocol version "${bodyVersion}"`);
    }
  }
  return undefined;
}

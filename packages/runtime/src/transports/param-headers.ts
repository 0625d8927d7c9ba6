/**
 * Custom headers from tool parameters (2026-07-28 Streamable HTTP, "Custom Headers from
 * Tool Parameters"): a tool's `inputSchema` marks parameters with `x-mcp-header: Name`,
 * clients mirror their values into `Mcp-Param-Name` headers, and the server checks each
 * header against the body: present when the body has a value, free of invalid
 * characters, its `=?base64?...?=` form decoded strictly, and equal to the value (integers
 * compared as numbers). Any failure is 400 with -32020 (HeaderMismatch).
 *
 * `readParamHeaders` reads and checks the annotations when a tool is added, so a tool
 * whose annotations break the spec's constraints is refused before any client sees it.
 */
import { ERROR_CODES, type ClientRequestMethod } from "../protocol.js";
import { errorResponse, type JsonRpcMessage } from "../jsonrpc.js";
import { decodeHeaderValue, type HttpRejection } from "./http-request.js";
import type { HeaderSource } from "./http-io.js";

const ANNOTATION = "x-mcp-header";
const HEADER_PREFIX = "mcp-param-";
/** RFC 9110 token (`1*tchar`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, space and tab: what a header value may hold before decoding. */
const FIELD_VALUE = /^[\x20-\x7e\t]*$/;
/** The parameter types a header may mirror (the spec excludes `number`). */
const HEADER_TYPES = new Set(["string", "integer", "boolean"]);

/** One annotated parameter: the header's lower-case name, the property path, the declared type. */
export interface ParamHeader {
  /** As annotated, for messages. */
  readonly name: string;
  /** Lower-case `mcp-param-<name>`, as Node keys incoming headers. */
  readonly header: string;
  readonly path: readonly string[];
  readonly type: "string" | "integer" | "boolean";
}

/** Looks up a tool's annotated parameters by tool name (undefined: unknown tool, or none). */
export type ParamHeaderLookup = (toolName: string) => readonly ParamHeader[] | undefined;

/** The annotations of an inputSchema; a TypeError naming the fault when one breaks the spec's constraints. */
export function readParamHeaders(toolName: string, inputSchema: unknown): ParamHeader[] {
  const found: ParamHeader[] = [];
  collect(toolName, inputSchema, [], found);
  const seen = new Set<string>();
  for (const { header } of found) {
    if (seen.has(header))
      throw new TypeError(`addTool ${toolName}: x-mcp-header "${header.slice(HEADER_PREFIX.length)}" is used twice (names are compared case-insensitively)`);
    seen.add(header);
  }
  assertNoStrayAnnotation(toolName, inputSchema, true);
  return found;
}

function collect(toolName: string, schema: unknown, path: string[], into: ParamHeader[]): void {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  if (properties === null || typeof properties !== "object") return;
  for (const [key, property] of Object.entries(properties)) {
    if (property === null || typeof property !== "object") continue;
    const here = [...path, key];
    const name = (property as Record<string, unknown>)[ANNOTATION];
    if (name !== undefined) {
      const type = (property as { type?: unknown }).type;
      if (typeof name !== "string" || !TOKEN.test(name)) throw new TypeError(`addTool ${toolName}: x-mcp-header of ${here.join(".")} must be an HTTP token`);
      if (typeof type !== "string" || !HEADER_TYPES.has(type)) {
        throw new TypeError(`addTool ${toolName}: x-mcp-header on ${here.join(".")} needs type string, integer or boolean`);
      }
      into.push({ name, header: HEADER_PREFIX + name.toLowerCase(), path: here, type: type as ParamHeader["type"] });
    }
    collect(toolName, property, here, into);
  }
}

/** An annotation reachable only through items, composition, conditionals or $ref makes the tool invalid. */
function assertNoStrayAnnotation(toolName: string, schema: unknown, reachable: boolean): void {
  if (schema === null || typeof schema !== "object") return;
  for (const [key, value] of Object.entries(schema)) {
    if (key === ANNOTATION && !reachable) throw new TypeError(`addTool ${toolName}: x-mcp-header must sit on a property reached through "properties" only`);
    if (key === "properties" && reachable && value !== null && typeof value === "object") {
      for (const property of Object.values(value)) assertNoStrayAnnotation(toolName, property, true);
    } else if (value !== null && typeof value === "object") {
      assertNoStrayAnnotation(toolName, value, false);
    }
  }
}

/** Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments; undefined when they agree. */
export function checkParamHeaders(headers: HeaderSource, message: JsonRpcMessage, lookup: ParamHeaderLookup | undefined): HttpRejection | undefined {
  if (lookup === undefined || !("method" in message) || message.method !== ("tools/call" satisfies ClientRequestMethod) || !("id" in message)) return undefined;
  const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
  const declared = typeof params?.name === "string" ? lookup(params.name) : undefined;
  if (declared === undefined || declared.length === 0) return undefined;
  for (const param of declared) {
    const problem = compare(param, headerValue(headers.get(param.header)), valueAt(params?.arguments, param.path));
    if (problem !== undefined) {
      return { status: 400, body: errorResponse(message.id, ERROR_CODES.HeaderMismatchError, `Header mismatch: ${displayName(param)} ${problem}`) };
    }
  }
  return undefined;
}

function compare(param: ParamHeader, raw: string | undefined, value: unknown): string | undefined {
  const absent = value === undefined || value === null;
  if (raw === undefined) return absent ? undefined : "is missing, but the body has a value for it";
  if (absent) return "is present, but the body has no value for it";
  if (!FIELD_VALUE.test(raw)) return "contains characters a header value may not hold; send =?base64?...?=";
  const decoded = decodeHeaderValue(raw);
  if (decoded === undefined) return "has a malformed =?base64?...?= value (standard alphabet, padded)";
  const matches =
    param.type === "integer" ? decoded.trim() !== "" && Number(decoded) === value : param.type === "boolean" ? decoded === String(value) : decoded === value;
  return matches ? undefined : `does not match the body's ${param.path.join(".")}`;
}

function headerValue(value: string | null | undefined): string | undefined {
  return value?.trim() ?? undefined;
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path) value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

function displayName(param: ParamHeader): string {
  return `Mcp-Param-${param.name}`;
}

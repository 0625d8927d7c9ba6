/**
 * When a failed `server/discover` means "this server opens sessions with `initialize`"
 * (so a client falls back to it) and when it means something else (passed on as it is).
 *
 * What initialize-era servers send, read from their code:
 * - the official 1.x SDK over HTTP, before a session exists: HTTP 400 with -32000 ("Server
 *   not initialized", "Mcp-Session-Id header is required", or an unknown
 *   `MCP-Protocol-Version`), 404 with -32001 (a session it does not know), 405 on a method
 *   it does not serve; all with id null, so no answer to the request;
 * - FastMCP 4.x (through mcp-proxy): HTTP 400 with -32000 answering the request ("No valid
 *   session ID provided", or "cannot serve the 2026-07-28 protocol revision");
 * - any of them over stdio or once initialized: -32601 (method not found), some -32600.
 * The same servers say 401/403 about the caller's credentials (often with -32000 as well),
 * and 5xx about themselves: neither is about the era, and `initialize` would not fare better.
 */
import { ERROR_CODES, PROTOCOL_VERSION } from "../protocol.js";

/** The HTTP statuses an initialize-era server refuses `server/discover` with. */
export const DISCOVER_REFUSAL_STATUSES: ReadonlySet<number> = new Set([400, 404, 405]);

/** -32000/-32001: the implementation-defined server errors the 1.x SDK and FastMCP use for "no session". */
const NO_SESSION_CODES = [-32000, -32001];

/** The JSON-RPC error codes that, without an HTTP status to go by, mean "not a method here". */
export const DISCOVER_REFUSAL_CODES: ReadonlySet<number> = new Set([ERROR_CODES.MethodNotFoundError, ERROR_CODES.InvalidRequestError, ...NO_SESSION_CODES]);

/** How one `server/discover` failed: the HTTP status (when over HTTP and not 2xx) and the JSON-RPC error (when there was one). */
export interface DiscoverFailure {
  readonly status?: number | undefined;
  readonly error?: { readonly code: number; readonly data?: unknown };
}

/** True when the failure says the server does not speak 2026-07-28 and `initialize` should be tried. */
export function refusesDiscover({ status, error }: DiscoverFailure): boolean {
  // -32022 names what the server speaks: without our version it is an older server; with
  // it, the refusal was about something else (the request was already sent once more).
  if (error?.code === ERROR_CODES.UnsupportedProtocolVersionError) return !listsOurVersion(error.data);
  if (status !== undefined) return DISCOVER_REFUSAL_STATUSES.has(status);
  return error !== undefined && DISCOVER_REFUSAL_CODES.has(error.code);
}

function listsOurVersion(data: unknown): boolean {
  const supported = (data as { supported?: unknown } | undefined)?.supported;
  return Array.isArray(supported) && supported.includes(PROTOCOL_VERSION);
}

/**
 * CORS for the browser origins the Streamable HTTP server allows: the preflight answer and
 * the headers every answer to such an origin carries. Sent only once `checkOrigin` has let
 * the origin through; a request without Origin is not a browser's and gets none.
 */

// Header names are the transport's, not the schema's: requests may carry the MCP headers
// SEP-2243 defines plus credentials; a client must be able to read the session id (legacy
// sessions), the protocol version and an authentication challenge.
const CORS_REQUEST_HEADERS: readonly string[] = [
  "content-type",
  "accept",
  "authorization",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "mcp-session-id",
  "last-event-id",
];
const CORS_EXPOSED_HEADERS: readonly string[] = ["mcp-session-id", "mcp-protocol-version", "www-authenticate"];
/** How long a browser may cache a preflight answer, in seconds. */
const CORS_MAX_AGE_S = 600;

/** The CORS headers of every answer to an allowed browser origin. */
export function corsHeaders(origin: string): Record<string, string> {
  return { "access-control-allow-origin": origin, vary: "Origin", "access-control-expose-headers": CORS_EXPOSED_HEADERS.join(", ") };
}

/**
 * The headers of a preflight answer (204) for an allowed origin. Since 2026-07-28 only
 * POST carries messages; legacy sessions also open a GET stream and end with DELETE.
 */
export function preflightHeaders(origin: string, legacySessions: boolean): Record<string, string> {
  return {
    ...corsHeaders(origin),
    "access-control-allow-methods": legacySessions ? "POST, GET, DELETE" : "POST",
    "access-control-allow-headers": CORS_REQUEST_HEADERS.join(", "),
    "access-control-max-age": String(CORS_MAX_AGE_S),
  };
}

/**
 * What the OAuth resource server answers a request it refuses: a status, the RFC 6750
 * `WWW-Authenticate: Bearer` challenge pointing at the Protected Resource Metadata (RFC 9728
 * §5.1), and a JSON-RPC error body. Plain data, so any HTTP adapter can write it.
 */
import { ERROR_CODES } from "../protocol.js";
import { errorResponse } from "../jsonrpc.js";

/** A refusal: 401 (no usable token), 403 (too few scopes), 503 (the authorization server could not be asked). */
export interface AuthRejection {
  readonly status: 401 | 403 | 503;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** One line saying what was wrong: the body's error message. */
  readonly message: string;
}

/** RFC 6750 §3.1 error codes. */
export type BearerError = "invalid_request" | "invalid_token" | "insufficient_scope";

export interface ChallengeParts {
  readonly resourceMetadata: string;
  /** Absent for a request that carried no token at all (RFC 6750 §3.1: no error code then). */
  readonly error?: BearerError | undefined;
  readonly description?: string | undefined;
  readonly scope?: readonly string[] | undefined;
}

/** The header value: `Bearer resource_metadata="...", error="...", error_description="...", scope="..."`. */
export function bearerChallenge(parts: ChallengeParts): string {
  const params = [`resource_metadata=${quoted(parts.resourceMetadata)}`];
  if (parts.error !== undefined) params.push(`error=${quoted(parts.error)}`);
  if (parts.description !== undefined) params.push(`error_description=${quoted(parts.description)}`);
  if (parts.scope !== undefined && parts.scope.length > 0) params.push(`scope=${quoted(parts.scope.join(" "))}`);
  return `Bearer ${params.join(", ")}`;
}

/** A 401 for a missing, malformed, expired, foreign or unverifiable token; `scope`: what a new token should carry. */
export function unauthorized(resourceMetadata: string, error: BearerError | undefined, reason: string, scope: readonly string[] = []): AuthRejection {
  const challenge = bearerChallenge({ resourceMetadata, error, description: error === undefined ? undefined : reason, scope });
  return rejection(401, challenge, reason);
}

/** A 403 naming every scope the request needs (RFC 6750 §3.1 `insufficient_scope`). */
export function insufficientScope(resourceMetadata: string, required: readonly string[], missing: readonly string[]): AuthRejection {
  const reason = `the token lacks the scope(s) ${missing.join(", ")} this request needs`;
  const challenge = bearerChallenge({ resourceMetadata, error: "insufficient_scope", description: reason, scope: required });
  return rejection(403, challenge, reason);
}

/** A 503: the token could not be checked now (the authorization server did not answer); worth a retry. */
export function unavailable(resourceMetadata: string, reason: string): AuthRejection {
  const rejected = rejection(503, bearerChallenge({ resourceMetadata }), reason);
  return { ...rejected, headers: { ...rejected.headers, "retry-after": "5" } };
}

function rejection(status: AuthRejection["status"], challenge: string, reason: string): AuthRejection {
  const label = status === 403 ? "Forbidden" : status === 401 ? "Unauthorized" : "Authorization unavailable";
  const message = `${label}: ${reason}`;
  return { status, headers: { "www-authenticate": challenge }, body: errorResponse(null, ERROR_CODES.InvalidRequestError, message), message };
}

/**
 * A value in RFC 6750's auth-param grammar (%x20-21 / %x23-5B / %x5D-7E inside the quotes):
 * any other character (a quote, a backslash, a control or non-ASCII one) becomes "?". The
 * values are ours, but a reason may carry a URL or a name from configuration, and a header
 * that Node or `Headers` refuses would turn a 401 into a 500.
 */
function quoted(value: string): string {
  return `"${value.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, "?")}"`;
}

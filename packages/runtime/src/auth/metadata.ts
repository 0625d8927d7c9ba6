/**
 * Protected Resource Metadata (RFC 9728): the document a client reads to learn which
 * authorization server issues tokens for this server, and where it is served. The
 * well-known URI is path-aware (§3.1: `/.well-known/oauth-protected-resource` inserted
 * before the resource's path); the root variant is served too, for clients that try it.
 */

const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/** The document's fields this server fills in (RFC 9728 §2). */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported: readonly string[];
  readonly bearer_methods_supported: readonly string[];
  readonly [extra: string]: unknown;
}

/** A plain HTTP answer for an adapter to write. */
export interface MetadataResponse {
  readonly status: 200 | 405;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/**
 * The canonical form of a resource or issuer URL (RFC 8707 §2, RFC 8414 §2): http(s),
 * scheme and host lower-case, default port dropped, no query or fragment, no trailing slash
 * on an empty path. `what` names the setting in the one-line error.
 */
export function canonicalUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${what} must be an absolute URL such as https://example.com/mcp, not ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new TypeError(`${what} must be an http(s) URL, not ${JSON.stringify(value)}`);
  if (url.search !== "" || url.hash !== "") throw new TypeError(`${what} must have no query or fragment: ${JSON.stringify(value)}`);
  if (url.username !== "" || url.password !== "") throw new TypeError(`${what} must not carry credentials`);
  const path = url.pathname === "/" ? "" : url.pathname;
  return `${url.protocol}//${url.host}${path}`;
}

/** The path-aware metadata URL of a resource, the one a 401's `resource_metadata` names. */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname;
  return `${url.origin}${WELL_KNOWN}${path}`;
}

/** The request paths the document is served at: the path-aware one, and the root one. */
export function metadataPaths(resource: string): readonly string[] {
  const path = new URL(metadataUrl(resource)).pathname;
  return path === WELL_KNOWN ? [WELL_KNOWN] : [path, WELL_KNOWN];
}

/**
 * The answer for a request at one of `paths`, or undefined for any other path. GET and HEAD
 * get the document (public, so any origin may read it, and briefly cacheable); other verbs 405.
 */
export function respondMetadata(
  method: string | undefined,
  path: string,
  paths: readonly string[],
  document: () => ProtectedResourceMetadata,
): MetadataResponse | undefined {
  if (!paths.includes(path)) return undefined;
  if (method !== "GET" && method !== "HEAD") return { status: 405, headers: { allow: "GET, HEAD" } };
  const headers = { "cache-control": "max-age=300", "access-control-allow-origin": "*" };
  return { status: 200, headers, ...(method === "GET" ? { body: document() } : {}) };
}

/**
 * Required OAuth scopes as tools, prompts and resources declare them (`options.scopes`).
 * The server only records them; an HTTP server with OAuth (auth/) compares them with the
 * scopes a caller's token carries before the request is served.
 */

export const NO_SCOPES: readonly string[] = Object.freeze([]);

/** RFC 6749 §3.3: a scope token is one or more printable ASCII characters other than space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** A declaration's scopes, checked and frozen; `what` names the registration in the error. */
export function checkedScopes(what: string, scopes: readonly string[] | undefined): readonly string[] {
  if (scopes === undefined || scopes.length === 0) return NO_SCOPES;
  if (!Array.isArray(scopes)) throw new TypeError(`${what}: scopes must be an array of strings`);
  for (const scope of scopes) {
    if (typeof scope !== "string" || !SCOPE_TOKEN.test(scope)) {
      throw new TypeError(`${what}: ${JSON.stringify(scope)} is not an OAuth scope (printable ASCII, no spaces, quotes or backslashes)`);
    }
  }
  return Object.freeze([...new Set(scopes)]);
}

/** The sorted set of every declared scope, for `scopes_supported`. */
export function scopeUnion(lists: Iterable<readonly string[]>): string[] {
  const all = new Set<string>();
  for (const list of lists) for (const scope of list) all.add(scope);
  return [...all].sort();
}

/**
 * Who a verified access token speaks for. The runtime keys per-client limits, legacy
 * sessions and task ownership on a principal's JSON text, so that text holds only what stays
 * the same from one token of a client to the next: issuer, subject and client id. The scopes
 * (and the expiry) ride beside it for the scope check and for handlers, outside the key. The
 * token itself is never kept.
 */

export interface PrincipalIdentity {
  readonly issuer: string;
  readonly subject: string;
  readonly clientId?: string;
}

export class TokenPrincipal implements PrincipalIdentity {
  readonly issuer: string;
  readonly subject: string;
  readonly clientId?: string;
  /** The scopes the token grants. */
  readonly scopes: readonly string[];
  /** When the token expires, in ms since the epoch; undefined when it did not say. */
  readonly expiresAt: number | undefined;

  constructor(identity: PrincipalIdentity, scopes: readonly string[], expiresAt: number | undefined) {
    this.issuer = identity.issuer;
    this.subject = identity.subject;
    if (identity.clientId !== undefined) this.clientId = identity.clientId;
    this.scopes = Object.freeze([...scopes]);
    this.expiresAt = expiresAt;
    Object.freeze(this);
  }

  /** The key: identity only (see above). */
  toJSON(): PrincipalIdentity {
    return this.clientId === undefined
      ? { issuer: this.issuer, subject: this.subject }
      : { issuer: this.issuer, subject: this.subject, clientId: this.clientId };
  }

  hasScopes(required: readonly string[]): boolean {
    return required.every((scope) => this.scopes.includes(scope));
  }
}

/**
 * The principal of verified claims (a JWT's or an introspection answer's): `sub`, else the
 * client (a client-credentials token may have no subject); undefined when neither is there.
 */
export function principalOf(issuer: string, claims: Readonly<Record<string, unknown>>): TokenPrincipal | undefined {
  const clientId = typeof claims["client_id"] === "string" ? claims["client_id"] : typeof claims["azp"] === "string" ? claims["azp"] : undefined;
  const subject = typeof claims["sub"] === "string" ? claims["sub"] : clientId;
  if (subject === undefined) return undefined;
  const scope = claims["scope"] ?? claims["scp"];
  const scopes =
    typeof scope === "string" ? scope.split(" ").filter(Boolean) : Array.isArray(scope) ? scope.filter((item): item is string => typeof item === "string") : [];
  const exp = claims["exp"];
  return new TokenPrincipal(
    clientId === undefined ? { issuer, subject } : { issuer, subject, clientId },
    scopes,
    typeof exp === "number" ? exp * 1000 : undefined,
  );
}

/**
 * One authorization server's signing keys: found through its metadata (RFC 8414
 * `/.well-known/oauth-authorization-server`, else OpenID Connect `openid-configuration`),
 * then its `jwks_uri`. Kept in memory, bounded in number, refetched when older than
 * `maxAgeMs` or when a token names a `kid` the set lacks (key rotation), but never sooner than
 * `minRefreshMs` after the last fetch, so tokens with made-up key ids cannot make this server
 * hammer the issuer. One fetch at a time; while it runs, callers wait for it.
 */
import { AuthServerError, fetchJson, type FetchBounds } from "./fetch-json.js";
import type { JoseKey, JoseModule } from "./jose.js";

export interface KeyCacheLimits {
  /** Keys kept from one JWKS; more are ignored. */
  readonly maxKeys: number;
  /** Age after which the set is fetched again on next use. */
  readonly maxAgeMs: number;
  /** The floor between two fetches, whatever tokens ask for. */
  readonly minRefreshMs: number;
  readonly fetch: FetchBounds;
}

type Jwk = Readonly<Record<string, unknown>>;

export class IssuerKeys {
  /** The issuer's metadata, once read (for `jwks_uri` and `introspection_endpoint`). */
  #metadata: Record<string, unknown> | undefined;
  #jwks: readonly Jwk[] = [];
  /** Imported keys by `kid` and algorithm: importing costs more than a verification. */
  readonly #imported = new Map<string, JoseKey>();
  #fetchedAt = Number.NEGATIVE_INFINITY;
  /** The last fetch attempt, successful or not: the floor counts from it. */
  #attemptedAt = Number.NEGATIVE_INFINITY;
  #failure: unknown;
  #refreshing: Promise<void> | undefined;

  constructor(
    readonly issuer: string,
    private readonly limits: KeyCacheLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** The issuer's metadata document, fetched on first need. */
  async metadata(): Promise<Record<string, unknown>> {
    this.#metadata ??= await discover(this.issuer, this.limits.fetch);
    return this.#metadata;
  }

  /**
   * The key that verifies a token with header `kid` and `alg`, or undefined when the issuer
   * has none (after one refetch, when the floor allows it). An AuthServerError when the
   * issuer cannot be asked and no key is held.
   */
  async key(jose: JoseModule, kid: string | undefined, alg: string): Promise<JoseKey | undefined> {
    const now = this.now();
    if (now - this.#fetchedAt < this.limits.maxAgeMs) {
      const held = await this.#find(jose, kid, alg);
      if (held !== undefined) return held;
    }
    if (this.#refreshing === undefined && now - this.#attemptedAt < this.limits.minRefreshMs) {
      // Within the floor: answer from what is held (stale or not), or with the last failure.
      if (this.#jwks.length === 0 && this.#failure !== undefined) throw this.#failure;
      return this.#find(jose, kid, alg);
    }
    await this.#refresh();
    return this.#find(jose, kid, alg);
  }

  async #find(jose: JoseModule, kid: string | undefined, alg: string): Promise<JoseKey | undefined> {
    const id = `${kid ?? ""}\u0000${alg}`;
    const cached = this.#imported.get(id);
    if (cached !== undefined) return cached;
    const jwk = this.#jwks.find((candidate) => fits(candidate, kid, alg));
    if (jwk === undefined) return undefined;
    const key = await jose.importJWK(jwk, alg);
    if (key instanceof Uint8Array) return undefined; // a symmetric key never verifies an access token here
    if (this.#imported.size >= this.limits.maxKeys * 4) this.#imported.clear();
    this.#imported.set(id, key);
    return key;
  }

  #refresh(): Promise<void> {
    this.#refreshing ??= this.#fetchKeys().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async #fetchKeys(): Promise<void> {
    this.#attemptedAt = this.now();
    try {
      const metadata = await this.metadata();
      const jwksUri = metadata["jwks_uri"];
      if (typeof jwksUri !== "string") throw new AuthServerError(`the metadata of ${this.issuer} names no jwks_uri`);
      const set = await fetchJson(jwksUri, this.limits.fetch);
      const keys = Array.isArray(set["keys"]) ? set["keys"] : undefined;
      if (keys === undefined) throw new AuthServerError(`${jwksUri} holds no "keys" array`);
      this.#jwks = keys.filter(isSigningKey).slice(0, this.limits.maxKeys);
      this.#imported.clear();
      this.#fetchedAt = this.now();
      this.#failure = undefined;
    } catch (error) {
      // Keys already held stay in use until a later attempt succeeds.
      this.#failure = error;
      if (this.#jwks.length === 0) throw error;
    }
  }
}

/** RFC 8414 §3.1 first (path-aware), then OpenID Connect Discovery; the document must name this issuer (§3.3). */
async function discover(issuer: string, bounds: FetchBounds): Promise<Record<string, unknown>> {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname;
  const candidates = [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${url.origin}${path}/.well-known/openid-configuration`];
  let failure: unknown;
  for (const candidate of candidates) {
    let document: Record<string, unknown>;
    try {
      document = await fetchJson(candidate, bounds);
    } catch (error) {
      failure ??= error;
      continue;
    }
    if (document["issuer"] !== issuer) throw new AuthServerError(`${candidate} names issuer ${JSON.stringify(document["issuer"])}, not ${issuer}`);
    return document;
  }
  throw failure instanceof AuthServerError ? failure : new AuthServerError(`no metadata found for issuer ${issuer}`);
}

function isSigningKey(jwk: unknown): jwk is Jwk {
  if (typeof jwk !== "object" || jwk === null) return false;
  const { kty, use } = jwk as Jwk;
  return (kty === "RSA" || kty === "EC" || kty === "OKP") && (use === undefined || use === "sig");
}

/** A key fits a token when its id (if the token names one) and its algorithm (if the key names one) agree. */
function fits(jwk: Jwk, kid: string | undefined, alg: string): boolean {
  if (kid !== undefined && jwk["kid"] !== kid) return false;
  return jwk["alg"] === undefined || jwk["alg"] === alg;
}

/**
 * The OAuth 2.1 resource server (MCP authorization, 2026-07-28): transport-neutral, so the
 * node handler and any fetch-style adapter share it. Three calls:
 * - `authenticate(request)`: the request's method, URL and headers to a `TokenPrincipal`, or
 *   a rejection (401 with the `WWW-Authenticate` challenge; 503 when the issuer cannot be asked);
 * - `authorize(principal, required)`: a 403 `insufficient_scope` when the token lacks a scope
 *   the request's tool, prompt or resource declares;
 * - `respond(method, path)`: the Protected Resource Metadata at its well-known paths.
 * Only bearer tokens in the Authorization header count (never the query string); a token is
 * verified and dropped, never kept or passed on.
 */
import { insufficientScope, unauthorized, unavailable, type AuthRejection, type BearerError } from "./challenge.js";
import { checkedScopes, scopeUnion } from "../scopes.js";
import type { FetchBounds } from "./fetch-json.js";
import type { IntrospectionOptions } from "./introspection.js";
import { Introspector } from "./introspector.js";
import { IssuerKeys, type KeyCacheLimits } from "./issuer-keys.js";
import type { JoseModule } from "./jose.js";
import { ASYMMETRIC_ALGORITHMS, isJwtShaped, verifyJwt, type JwtSettings, type TokenCheck } from "./jwt.js";
import { canonicalUrl, metadataPaths, metadataUrl, respondMetadata, type MetadataResponse, type ProtectedResourceMetadata } from "./metadata.js";
import { principalOf, TokenPrincipal } from "./principal.js";
import { DEFAULT_TOKEN_CACHE, TokenCache, type TokenCacheLimits } from "./token-cache.js";

export interface OAuthOptions {
  /** This server's canonical URL (e.g. `https://example.com/mcp`): the audience every token must name. */
  readonly resource: string;
  /** The issuer(s) whose tokens are accepted, as their metadata names them. */
  readonly issuers: string | readonly string[];
  /**
   * Scopes every request needs: a token without them gets 403 `insufficient_scope`, and every
   * 401 challenge names them (`scope=`), which is what a client asks its first token for
   * (MCP scope selection: the challenge's scope, else all of `scopes_supported`). Default none.
   */
  readonly requiredScopes?: readonly string[];
  /** `scopes_supported` beside `requiredScopes`; the HTTP wiring passes what the server's tools, prompts and resources declare. */
  readonly scopesSupported?: () => readonly string[];
  /**
   * Opaque (non-JWT) tokens are introspected (RFC 7662) at the first issuer when this is set;
   * otherwise refused. Answers are kept `cacheMs` (10 s; an active token's never past its
   * `exp`), at most `maxEntries` (10,000) and `maxBytes` (8 MiB); at most `maxConcurrent` (4)
   * calls run at once, `maxWaiting` (64) more wait up to `waitMs` (5 s), others get 503.
   */
  readonly introspection?: IntrospectionOptions;
  /** Accepted signature algorithms. Default: the asymmetric JWS ones (RS*, PS*, ES*, EdDSA). */
  readonly algorithms?: readonly string[];
  /** Leeway for `exp` and `nbf`. Default 5 s. */
  readonly clockToleranceSeconds?: number;
  /** Longest Authorization header accepted. Default 16 KiB. */
  readonly maxTokenBytes?: number;
  /**
   * The jose module (`import * as jose from "jose"`). Default: imported on the first token.
   * Pass it where a bundler must see the import (a Cloudflare Worker), since the default's
   * import is resolved only at run time.
   */
  readonly jose?: JoseModule;
  /** Key cache bounds (see issuer-keys.ts): `maxKeys` 32, `maxAgeMs` 10 min, `minRefreshMs` 30 s. */
  readonly keys?: Partial<Omit<KeyCacheLimits, "fetch">>;
  /** Bounds of each call to an authorization server: `maxBytes` 256 KiB, `timeoutMs` 5 s. */
  readonly fetch?: Partial<FetchBounds>;
  /** Verified JWTs kept for reuse (see token-cache.ts): `maxEntries` 10,000, `maxBytes` 8 MiB. */
  readonly tokenCache?: Partial<TokenCacheLimits>;
  /** Further metadata fields (RFC 9728 §2), e.g. `resource_name`, `resource_documentation`. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** A request as any HTTP stack has it: Node's header record or a web `Headers`. */
export interface AuthRequest {
  readonly method?: string | undefined;
  readonly headers: { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;
}

export type AuthOutcome = { readonly principal: TokenPrincipal } | { readonly rejection: AuthRejection };

export const DEFAULT_MAX_TOKEN_BYTES = 16 * 1024;
export const DEFAULT_KEY_LIMITS: Omit<KeyCacheLimits, "fetch"> = Object.freeze({ maxKeys: 32, maxAgeMs: 10 * 60_000, minRefreshMs: 30_000 });
export const DEFAULT_FETCH_BOUNDS: FetchBounds = Object.freeze({ maxBytes: 256 * 1024, timeoutMs: 5_000 });

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export class ResourceServer {
  /** The canonical resource URL. */
  readonly resource: string;
  /** Where the metadata document is (the path-aware URL a challenge names). */
  readonly metadataUrl: string;
  readonly #issuers: ReadonlyMap<string, IssuerKeys>;
  readonly #paths: readonly string[];
  readonly #jwt: JwtSettings;
  readonly #fetch: FetchBounds;
  readonly #maxTokenBytes: number;
  readonly #baseScopes: readonly string[];
  readonly #verified: TokenCache;
  readonly #introspector: Introspector | undefined;

  constructor(private readonly options: OAuthOptions) {
    this.resource = canonicalUrl(options.resource, "the OAuth resource (the server's public URL)");
    this.metadataUrl = metadataUrl(this.resource);
    this.#paths = metadataPaths(this.resource);
    this.#fetch = { ...DEFAULT_FETCH_BOUNDS, ...options.fetch };
    const limits = { ...DEFAULT_KEY_LIMITS, ...options.keys, fetch: this.#fetch };
    const issuers = typeof options.issuers === "string" ? [options.issuers] : [...options.issuers];
    if (issuers.length === 0) throw new TypeError("OAuth needs at least one issuer (the authorization server's URL)");
    // An issuer is compared as its metadata spells it, so it is only checked, not rewritten.
    for (const issuer of issuers) canonicalUrl(issuer, "an OAuth issuer");
    this.#issuers = new Map(issuers.map((issuer) => [issuer, new IssuerKeys(issuer, limits)]));
    this.#jwt = {
      audience: this.resource,
      algorithms: options.algorithms ?? ASYMMETRIC_ALGORITHMS,
      clockToleranceSeconds: options.clockToleranceSeconds ?? 5,
      jose: options.jose,
    };
    this.#maxTokenBytes = options.maxTokenBytes ?? DEFAULT_MAX_TOKEN_BYTES;
    this.#baseScopes = checkedScopes("OAuth requiredScopes", options.requiredScopes);
    this.#verified = new TokenCache({ ...DEFAULT_TOKEN_CACHE, ...options.tokenCache });
    const introspection = options.introspection;
    this.#introspector =
      introspection === undefined ? undefined : new Introspector(this.#issuers.get(issuers[0]!)!, introspection, { ...this.#jwt, fetch: this.#fetch });
  }

  /** The principal the request's bearer token speaks for, or why it is refused. */
  async authenticate(request: AuthRequest): Promise<AuthOutcome> {
    const found = this.#bearerToken(request);
    if (typeof found !== "string") return { rejection: found };
    const principal = this.#verified.get(found) ?? (await this.#verify(found));
    if (!(principal instanceof TokenPrincipal)) return { rejection: principal };
    const short = this.authorize(principal, this.#baseScopes);
    return short === undefined ? { principal } : { rejection: short };
  }

  /** A token not seen before (or no longer cached): checked, and kept when it is a valid JWT. */
  async #verify(token: string): Promise<TokenPrincipal | AuthRejection> {
    const check = await this.#check(token);
    if (!check.ok) return check.unavailable ? unavailable(this.metadataUrl, check.reason) : this.#unauthorized("invalid_token", check.reason);
    const principal = principalOf(check.issuer, check.claims);
    if (principal === undefined) return this.#unauthorized("invalid_token", "the token names no subject or client");
    if (isJwtShaped(token) && check.introspected !== true && principal.expiresAt !== undefined) {
      this.#verified.set(token, principal, principal.expiresAt + this.#jwt.clockToleranceSeconds * 1000);
    }
    return principal;
  }

  /** A 403 when `principal` lacks any of `required`; undefined when it has them all. */
  authorize(principal: unknown, required: readonly string[]): AuthRejection | undefined {
    if (required.length === 0) return undefined;
    const granted = principal instanceof TokenPrincipal ? principal.scopes : [];
    const missing = required.filter((scope) => !granted.includes(scope));
    return missing.length === 0 ? undefined : insufficientScope(this.metadataUrl, required, missing);
  }

  /** The metadata answer for a request at one of its paths; undefined for any other path. */
  respond(method: string | undefined, path: string): MetadataResponse | undefined {
    return respondMetadata(method, path, this.#paths, () => this.document());
  }

  /** The Protected Resource Metadata document (RFC 9728 §2). */
  document(): ProtectedResourceMetadata {
    return {
      ...this.options.metadata,
      resource: this.resource,
      authorization_servers: [...this.#issuers.keys()],
      scopes_supported: scopeUnion([this.#baseScopes, this.options.scopesSupported?.() ?? []]),
      bearer_methods_supported: ["header"],
    };
  }

  #bearerToken(request: AuthRequest): string | AuthRejection {
    const value = headerOf(request.headers, "authorization");
    if (value === undefined || value === "") return this.#unauthorized(undefined, "this server needs a bearer token (OAuth 2.1)");
    if (Array.isArray(value)) return this.#unauthorized("invalid_request", "more than one Authorization header");
    const text = value as string;
    if (text.length > this.#maxTokenBytes) return this.#unauthorized("invalid_token", `the Authorization header is longer than ${this.#maxTokenBytes} bytes`);
    const match = BEARER.exec(text);
    if (match === null) {
      return /^bearer\b/i.test(text)
        ? this.#unauthorized("invalid_token", "the bearer token is malformed")
        : this.#unauthorized(undefined, "this server needs a bearer token (OAuth 2.1)");
    }
    return match[1]!;
  }

  #unauthorized(error: BearerError | undefined, reason: string): AuthRejection {
    return unauthorized(this.metadataUrl, error, reason, this.#baseScopes);
  }

  #check(token: string): Promise<TokenCheck> {
    if (isJwtShaped(token)) return verifyJwt(token, this.#issuers, this.#jwt);
    if (this.#introspector === undefined) return Promise.resolve({ ok: false, reason: "the token is not a JWT and this server does not introspect tokens" });
    return this.#introspector.check(token);
  }
}

export function createResourceServer(options: OAuthOptions): ResourceServer {
  return new ResourceServer(options);
}

function headerOf(headers: AuthRequest["headers"], name: string): string | readonly string[] | undefined {
  if (typeof (headers as { get?: unknown }).get === "function") return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  return (headers as Readonly<Record<string, string | readonly string[] | undefined>>)[name];
}

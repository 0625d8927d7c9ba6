/**
 * JWTs already verified, so that a client sending the same token on every request pays for
 * its signature check once: a hit is a map lookup and an expiry check. An entry holds the
 * token's text (compared whole), its principal and its expiry; it is used only until `exp`
 * (plus the clock tolerance), never beyond. Bounded by entries and by the bytes of token
 * text held; the least recently used go first. Introspected tokens are not kept: asking
 * the authorization server each time is what lets it revoke them.
 */
import type { TokenPrincipal } from "./principal.js";

export interface TokenCacheLimits {
  /** Verified tokens kept. Default 10,000; 0 turns the cache off. */
  readonly maxEntries: number;
  /** Bytes of token text kept, all entries together (UTF-16 length as the measure). Default 8 MiB. */
  readonly maxBytes: number;
}

export const DEFAULT_TOKEN_CACHE: TokenCacheLimits = Object.freeze({ maxEntries: 10_000, maxBytes: 8 * 1024 * 1024 });

interface Entry {
  readonly principal: TokenPrincipal;
  /** Last instant (ms) the token may be used. */
  readonly usableUntil: number;
}

export class TokenCache {
  /** Map order is recency: a hit moves its entry to the end. */
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(
    private readonly limits: TokenCacheLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** The principal of a token verified before and still within its lifetime. */
  get(token: string): TokenPrincipal | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    this.#entries.delete(token);
    if (this.now() > entry.usableUntil) {
      this.#bytes -= token.length;
      return undefined;
    }
    this.#entries.set(token, entry);
    return entry.principal;
  }

  /** Keeps a verified token until `usableUntil` (ms); one with no expiry is not kept. */
  set(token: string, principal: TokenPrincipal, usableUntil: number | undefined): void {
    if (usableUntil === undefined || this.limits.maxEntries === 0 || token.length > this.limits.maxBytes) return;
    if (this.#entries.delete(token)) this.#bytes -= token.length;
    this.#entries.set(token, { principal, usableUntil });
    this.#bytes += token.length;
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.limits.maxEntries && this.#bytes <= this.limits.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= oldest.length;
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}

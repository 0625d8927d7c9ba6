/**
 * JWTs already verified, so that a client sending the same token on every request pays for
 * its signature check once: a hit is a map lookup and an expiry check. An entry holds the
 * token's text (compared whole), its principal and its expiry; it is used only until `exp`
 * (plus the clock tolerance), never beyond. Bounded by entries and by the bytes of token
 * text held; the least recently used go first. Introspection answers are kept in one too
 * (introspector.ts), for a much shorter time, since asking again is what lets the
 * authorization server revoke a token.
 */
import type { TokenPrincipal } from "./principal.js";

export interface TokenCacheLimits {
  /** Verified tokens kept. Default 10,000; 0 turns the cache off. */
  readonly maxEntries: number;
  /** Bytes of token text kept, all entries together (UTF-16 length as the measure). Default 8 MiB. */
  readonly maxBytes: number;
}

export const DEFAULT_TOKEN_CACHE: TokenCacheLimits = Object.freeze({ maxEntries: 10_000, maxBytes: 8 * 1024 * 1024 });

interface Entry<Value> {
  readonly value: Value;
  /** Last instant (ms) the token may be used. */
  readonly usableUntil: number;
}

/** What is kept per token: a verified JWT's principal, or an introspection's answer. */
export class TokenCache<Value = TokenPrincipal> {
  /** Map order is recency: a hit moves its entry to the end. */
  readonly #entries = new Map<string, Entry<Value>>();
  #bytes = 0;

  constructor(
    private readonly limits: TokenCacheLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** What was kept for a token, while it is still usable. */
  get(token: string): Value | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    this.#entries.delete(token);
    if (this.now() > entry.usableUntil) {
      this.#bytes -= token.length;
      return undefined;
    }
    this.#entries.set(token, entry);
    return entry.value;
  }

  /** Keeps a value for a token until `usableUntil` (ms); one with no expiry is not kept. */
  set(token: string, value: Value, usableUntil: number | undefined): void {
    if (usableUntil === undefined || this.limits.maxEntries === 0 || token.length > this.limits.maxBytes) return;
    if (this.#entries.delete(token)) this.#bytes -= token.length;
    this.#entries.set(token, { value, usableUntil });
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

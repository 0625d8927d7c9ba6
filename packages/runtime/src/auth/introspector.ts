/**
 * What stands between tokens and the introspection endpoint (introspection.ts), so that
 * made-up tokens cannot turn into as many calls to the authorization server, each carrying
 * this server's client credentials:
 * - each answer, active or not, is kept for `cacheMs` (an active token's never past its
 *   `exp`), bounded in entries and bytes like the verified-JWT cache; a failed exchange is
 *   not kept;
 * - a token already being introspected waits for that call rather than making another;
 * - at most `maxConcurrent` calls run at once; up to `maxWaiting` more wait for a turn, each
 *   at most `waitMs`; any other is refused at once as the issuer being unavailable (503 with
 *   Retry-After), which a client retries.
 */
import { introspect, type IntrospectionLimits, type IntrospectionOptions, type IntrospectionSettings } from "./introspection.js";
import type { IssuerKeys } from "./issuer-keys.js";
import type { TokenCheck } from "./jwt.js";
import { TokenCache } from "./token-cache.js";

export type { IntrospectionLimits };

export const DEFAULT_INTROSPECTION_LIMITS: IntrospectionLimits = Object.freeze({
  cacheMs: 10_000,
  maxEntries: 10_000,
  maxBytes: 8 * 1024 * 1024,
  maxConcurrent: 4,
  maxWaiting: 64,
  waitMs: 5_000,
});

export class Introspector {
  readonly #answers: TokenCache<TokenCheck>;
  readonly #inFlight = new Map<string, Promise<TokenCheck>>();
  readonly #turns: Turns;
  readonly #limits: IntrospectionLimits;

  constructor(
    private readonly keys: IssuerKeys,
    private readonly options: IntrospectionOptions,
    private readonly settings: IntrospectionSettings,
  ) {
    this.#limits = { ...DEFAULT_INTROSPECTION_LIMITS, ...definedOnly(options) };
    this.#answers = new TokenCache(this.#limits, settings.now);
    this.#turns = new Turns(this.#limits);
  }

  /** The token's check: kept, joined, or asked for when a turn is free. */
  check(token: string): Promise<TokenCheck> {
    const kept = this.#answers.get(token);
    if (kept !== undefined) return Promise.resolve(kept);
    const running = this.#inFlight.get(token);
    if (running !== undefined) return running;
    const asking = this.#ask(token).finally(() => this.#inFlight.delete(token));
    this.#inFlight.set(token, asking);
    return asking;
  }

  async #ask(token: string): Promise<TokenCheck> {
    // Taken before any await, so that calls made together are admitted in their order.
    const turn = this.#turns.take();
    if (!(await turn)) {
      return { ok: false, unavailable: true, reason: "too many tokens are being introspected at once; retry shortly" };
    }
    try {
      const check = await introspect(token, this.keys, this.options, this.settings);
      if (check.ok || check.unavailable !== true) this.#answers.set(token, check, this.#keptUntil(check));
      return check;
    } finally {
      this.#turns.give();
    }
  }

  #keptUntil(check: TokenCheck): number | undefined {
    if (this.#limits.cacheMs <= 0) return undefined;
    const until = (this.settings.now ?? Date.now)() + this.#limits.cacheMs;
    const exp = check.ok ? check.claims["exp"] : undefined;
    return typeof exp === "number" ? Math.min(until, exp * 1000) : until;
  }
}

/** A counting semaphore with a bounded queue whose waits are bounded in time. */
class Turns {
  #running = 0;
  readonly #waiting: Array<(granted: boolean) => void> = [];

  constructor(private readonly limits: IntrospectionLimits) {}

  /** Resolves true once the caller may run (it then calls `give`), false when refused. */
  take(): Promise<boolean> {
    if (this.#running < this.limits.maxConcurrent) {
      this.#running++;
      return Promise.resolve(true);
    }
    if (this.#waiting.length >= this.limits.maxWaiting) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const at = this.#waiting.indexOf(grant);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(false);
      }, this.limits.waitMs);
      // A wait must not by itself keep a process alive (Node's timers have unref; others need none).
      (timer as { unref?: () => void }).unref?.();
      const grant = (granted: boolean) => {
        clearTimeout(timer);
        resolve(granted);
      };
      this.#waiting.push(grant);
    });
  }

  /** A finished call's turn goes to the longest waiting, else back to the pool. */
  give(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#running--;
    else next(true);
  }
}

/** The limits the options set (an option left undefined keeps its default). */
function definedOnly(options: IntrospectionOptions): Partial<IntrospectionLimits> {
  const limits: Partial<Record<keyof IntrospectionLimits, number>> = {};
  for (const key of Object.keys(DEFAULT_INTROSPECTION_LIMITS) as (keyof IntrospectionLimits)[]) {
    const value = options[key];
    if (typeof value === "number") limits[key] = value;
  }
  return limits;
}

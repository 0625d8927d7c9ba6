/**
 * The sealed request states already opened (input-required.ts), each remembered until its
 * own expiry, after which the seal is refused as expired anyway: so a state opens once. The
 * set is bounded: at `max` unexpired entries a further use is refused (the caller answers an
 * error naming the limit) rather than forgetting a state still usable, which would let it be
 * replayed. Expired entries are swept when the earliest of them has expired, at most once a
 * second, so a sweep's walk over the set is paid at most once a second.
 */

/** Seals remembered as used at once, per server (`limits.maxUsedRequestStates`). */
export const DEFAULT_MAX_USED_STATES = 100_000;

const SWEEP_FLOOR_MS = 1_000;

export class UsedStates {
  /** A seal's MAC, and when the seal expires (ms). */
  readonly #expiries = new Map<string, number>();
  /** The next instant a sweep may find something expired; none before. */
  #nextSweep = Number.POSITIVE_INFINITY;
  #lastSweep = Number.NEGATIVE_INFINITY;

  constructor(readonly max: number) {}

  /** Records one use of the seal `id` (usable until `expiresAt`): "fresh" the first time, "replayed" after. */
  claim(id: string, expiresAt: number, now: number): "fresh" | "replayed" | "full" {
    if (this.#expiries.has(id)) return "replayed";
    if (now >= this.#nextSweep || (this.#expiries.size >= this.max && now - this.#lastSweep >= SWEEP_FLOOR_MS)) this.#sweep(now);
    if (this.#expiries.size >= this.max) return "full";
    this.#expiries.set(id, expiresAt);
    if (expiresAt < this.#nextSweep) this.#nextSweep = Math.max(expiresAt, this.#lastSweep + SWEEP_FLOOR_MS);
    return "fresh";
  }

  get size(): number {
    return this.#expiries.size;
  }

  #sweep(now: number): void {
    let earliest = Number.POSITIVE_INFINITY;
    for (const [id, expiresAt] of this.#expiries) {
      if (expiresAt < now) this.#expiries.delete(id);
      else if (expiresAt < earliest) earliest = expiresAt;
    }
    this.#lastSweep = now;
    this.#nextSweep = Math.max(earliest, now + SWEEP_FLOOR_MS);
  }
}

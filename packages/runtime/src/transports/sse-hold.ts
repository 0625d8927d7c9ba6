/**
 * What one SSE stream holds in memory, and the two per-stream rules that end it: the cap
 * on what it holds, and the stall time. Its writer (http-sse.ts) reports each write and
 * each frame it queues; the hold counts the bytes, charges them to the server-wide budget
 * (sse-budget.ts) and evicts through the writer when a rule says so.
 *
 * Counted as memory, not payload: the response's and socket's own buffered bytes
 * (`writableLength`), the waiting frames' UTF-8 size (never less than their in-heap size),
 * and a measured bookkeeping cost per waiting frame and per buffered write. Shared bytes
 * (one buffer written to many streams) count whole for every stream that holds them, in its
 * cap and in the budget (see sse-budget.ts for why).
 *
 * Stalled: from a write the socket refused (Node's buffer for it went over its high-water
 * mark, so the kernel's buffers are full) until the socket drains. A shared timer checks,
 * so a stalled stream ends on time even when nothing more is sent to it.
 */
import type { BudgetedStream, SseBudget } from "./sse-budget.js";
import { TimerGroups } from "./timer-group.js";

/** Why a stream was evicted. */
export type Eviction = "stream-cap" | "server-budget" | "stalled";

/**
 * Bookkeeping per waiting frame (its array slot and Set entry, the string headers) and per
 * write waiting in Node's buffers (the write request, the string's header). Measured with
 * 230-byte frames on 20 stalled streams, in heap beyond the payload: about 43 bytes per
 * waiting frame; per buffered write about 165 for a whole chunk written to the socket
 * (every write of a chunked stream after its first, http-sse.ts) and 285 for a write
 * through the response (the first, and an unchunked response's), which queues the chunk
 * size and CRLFs as pieces of their own. One figure serves both: it counts the common write
 * high and the rare one a little low.
 */
export const PENDING_FRAME_OVERHEAD = 64;
export const BUFFERED_WRITE_OVERHEAD = 256;

/** What a hold needs of its writer: the one way to end the stream. */
export interface HoldOwner {
  evict(reason: Eviction): false;
}

export interface HoldLimits {
  /** Held bytes above which the stream is evicted. */
  readonly maxBytes: number;
  /** Stalled this long, the stream is evicted; 0 never. */
  readonly maxStalledMs: number;
  readonly budget: SseBudget | undefined;
  /** Node's high-water mark for the socket (where `write` starts returning false); fixed per socket. */
  readonly nodeHighWater: number;
}

export class StreamHold implements BudgetedStream {
  readonly #owner: HoldOwner;
  // The limits are copied into fields: one object fewer per stream.
  readonly #maxBytes: number;
  readonly #maxStalledMs: number;
  readonly #budget: SseBudget | undefined;
  readonly #nodeHighWater: number;
  #held = 0;
  /** Waiting frames' bytes, bookkeeping included. */
  #pendingBytes = 0;
  /** Writes made while Node's buffer was not empty: each costs bookkeeping until it drains. */
  #writesBuffered = 0;
  /** Marked in the budget as holding more than Node's high-water mark. */
  #candidate = false;
  /** When a write was refused with no drain since (Date.now()); 0 while not stalled. */
  #stalledSince = 0;
  /** Bytes of whole answers written over the cap (`allowWhole`), not held against it until the socket drains. */
  #allowance = 0;
  /** The most bytes this stream ever held; for tests and metrics. */
  peakBytes = 0;

  constructor(owner: HoldOwner, limits: HoldLimits) {
    this.#owner = owner;
    this.#maxBytes = limits.maxBytes;
    this.#maxStalledMs = limits.maxStalledMs;
    this.#budget = limits.budget;
    this.#nodeHighWater = limits.nodeHighWater;
  }

  get heldBytes(): number {
    return this.#held;
  }

  /** Whether `bytes` more, in `writes` writes to Node, stay within the cap. */
  fits(bytes: number, writes: number): boolean {
    return this.#held + bytes + writes * BUFFERED_WRITE_OVERHEAD <= this.#maxBytes + this.#allowance;
  }

  /**
   * One answer of `bytes` is written whole over the cap (http-sse.ts `writeAnswer`): until
   * the socket drains, the cap counts above it, so the frames after it are held to the cap
   * as before rather than evicting a client that is reading it. The budget counts it whole.
   */
  allowWhole(bytes: number): void {
    this.#allowance += bytes + BUFFERED_WRITE_OVERHEAD;
  }

  /** Counts one more waiting frame of `bytes` (UTF-8); false, counting nothing, when it would pass the cap. */
  queue(bytes: number): boolean {
    const size = bytes + PENDING_FRAME_OVERHEAD;
    if (this.#held + size > this.#maxBytes + this.#allowance) return false;
    this.#pendingBytes += size;
    this.#setHeld(this.#held + size); // may evict this stream to keep the budget
    return true;
  }

  /** A waiting frame of `bytes` left the list (to be written: the write accounts again). */
  unqueue(bytes: number): void {
    this.#pendingBytes -= bytes + PENDING_FRAME_OVERHEAD;
  }

  /** After `writes` writes to Node: `refused` when the last returned false, `buffered` what Node holds now. */
  wrote(writes: number, refused: boolean, buffered: number): void {
    if (refused && this.#stalledSince === 0) this.#stall();
    if (buffered > 0) this.#writesBuffered += writes;
    this.account(buffered);
  }

  /** The socket drained: not stalled, whatever comes next. */
  drained(): void {
    this.#unstall();
    this.#writesBuffered = 0;
    this.#allowance = 0;
  }

  /** Recounts what the stream holds from Node's buffer (`buffered`, its writableLength) and the waiting frames. */
  account(buffered: number): void {
    if (buffered === 0) this.#writesBuffered = this.#allowance = 0; // whatever was written whole is out
    this.#setHeld(buffered + this.#pendingBytes + BUFFERED_WRITE_OVERHEAD * this.#writesBuffered);
  }

  /** Evicts the stream when it has been stalled longer than maxStalledMs; true when it did. */
  evictIfStalled(now: number = this.#stalledSince === 0 ? 0 : Date.now()): boolean {
    if (this.#stalledSince === 0 || this.#maxStalledMs <= 0 || now - this.#stalledSince <= this.#maxStalledMs) return false;
    this.#owner.evict("stalled");
    return true;
  }

  /** For the budget: ends the stream. */
  evict(reason: "server-budget"): void {
    this.#owner.evict(reason);
  }

  /** The stream ended: everything it held is given back. */
  end(): void {
    this.#unstall();
    const budget = this.#budget;
    budget?.setCongested(this, false);
    budget?.charge(-this.#held);
    this.#held = this.#pendingBytes = 0;
  }

  #setHeld(held: number): void {
    const delta = held - this.#held;
    if (delta === 0) return;
    this.#held = held;
    if (held > this.peakBytes) this.peakBytes = held;
    const budget = this.#budget;
    if (budget === undefined) return;
    // Holding more than Node's own high-water mark for the socket (where `write` starts
    // returning false), the client has not taken what it was sent: an eviction candidate,
    // marked before the charge so that a stream pushing the total over can go. Not the
    // writer's higher `highWaterBytes`: 256 streams just under it would already fill the budget.
    const candidate = held > this.#nodeHighWater;
    if (candidate !== this.#candidate) budget.setCongested(this, (this.#candidate = candidate));
    budget.charge(delta);
  }

  /** A write was refused: the stall clock starts, and the shared watch checks it from now on. */
  #stall(): void {
    this.#stalledSince = Date.now();
    if (this.#maxStalledMs > 0) stallWatches.for(this.#maxStalledMs).add(this);
  }

  #unstall(): void {
    if (this.#stalledSince === 0) return;
    this.#stalledSince = 0;
    if (this.#maxStalledMs > 0) stallWatches.for(this.#maxStalledMs).delete(this);
  }
}

/**
 * One timer per stall time for the streams currently stalled (none for the rest): it ends
 * a stalled stream on time even when nothing more is written to it. It checks four times
 * per stall time (at most once a second, at least every 10 ms), so an eviction comes at
 * most a quarter of maxStalledMs late (a second at most). Stops with its last stream.
 */
const stallWatches = new TimerGroups<StreamHold>(
  (maxStalledMs) => Math.min(1000, Math.max(10, Math.floor(maxStalledMs / 4))),
  (hold, now) => hold.evictIfStalled(now), // an eviction leaves the set: safe while iterating
);

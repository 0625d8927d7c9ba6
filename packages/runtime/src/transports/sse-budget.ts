/**
 * The server-wide budget for buffered SSE output: the bytes every open stream holds in
 * memory (Node's response and socket buffers, frames waiting while a client is slow, and
 * the bookkeeping of each), summed over all streams of one HTTP handler.
 *
 * Policy: while the sum is within the budget nothing happens. When a stream's growth takes
 * it over, congested streams (those holding more than Node's high-water mark for their
 * socket, 16 KiB by default: the client has not taken what it was sent) are evicted, the
 * one holding the most first, until the sum is back within the budget. A stream whose
 * writes the socket took is never evicted by the budget. Bytes that several streams write
 * from one shared buffer (a large frame fanned out) count for each stream that holds them,
 * though the buffer is in memory once: counted once, the slow-consumer soak's RSS rose by
 * about 50 MB and past its bound in some runs (the budget misses per-stream costs such a
 * stream brings, so erring this way evicts stuck streams earlier instead). Eviction
 * cuts the response (the client sees the connection end without the `complete` result;
 * it should listen again and re-fetch); the server reports the stream as "evicted".
 */

/** Default budget: 64 MiB, 64 streams at the default per-stream cap of 1 MiB. */
export const DEFAULT_MAX_TOTAL_BUFFERED_BYTES = 64 * 1024 * 1024;

/** What the budget needs of a stream's writer. */
export interface BudgetedStream {
  /** Bytes the stream holds (as sse-hold.ts counts them), as last accounted. */
  readonly heldBytes: number;
  /** Ends the stream at once, giving its bytes back. */
  evict(reason: "server-budget"): void;
}

export class SseBudget {
  #used = 0;
  /** The most bytes held at once across all streams, after any eviction; for tests and metrics. */
  peakBytes = 0;
  /** Streams evicted to keep within the budget. */
  evictions = 0;
  readonly #congested = new Set<BudgetedStream>();
  #relieving = false;

  constructor(readonly maxBytes: number = DEFAULT_MAX_TOTAL_BUFFERED_BYTES) {}

  get usedBytes(): number {
    return this.#used;
  }

  /** A stream's held bytes changed by `delta`; over the budget, congested streams are evicted. */
  charge(delta: number): void {
    this.#used += delta;
    if (delta > 0 && this.#used > this.maxBytes) this.#relieve();
    if (this.#used > this.peakBytes) this.peakBytes = this.#used;
  }

  /** Marks a stream as congested (holding more than Node's high-water mark: an eviction candidate) or not. */
  setCongested(stream: BudgetedStream, congested: boolean): void {
    if (congested) this.#congested.add(stream);
    else this.#congested.delete(stream);
  }

  #relieve(): void {
    if (this.#relieving) return; // an eviction gives bytes back through charge(): no re-entry
    this.#relieving = true;
    try {
      const largestFirst = [...this.#congested].sort((a, b) => b.heldBytes - a.heldBytes);
      for (const stream of largestFirst) {
        if (this.#used <= this.maxBytes) break;
        this.evictions++;
        stream.evict("server-budget");
      }
    } finally {
      this.#relieving = false;
    }
  }
}

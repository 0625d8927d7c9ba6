/**
 * A connection's open streams by id, and its running requests. Most connections carry one
 * (over HTTP each listen and each request is its own POST), so the first sits in a field
 * and a Map is made only for a second: with 10,000 streams that spares 10,000 Maps, and a
 * request spares the Map it would make and shrink again.
 */
import type { RequestId } from "../jsonrpc.js";

interface Keyed {
  readonly id: RequestId;
}

const NONE: readonly never[] = Object.freeze([]);

export class StreamTable<S extends Keyed> {
  #only: S | undefined;
  #many: Map<RequestId, S> | undefined;

  get(id: RequestId): S | undefined {
    if (this.#many !== undefined) return this.#many.get(id);
    return this.#only !== undefined && this.#only.id === id ? this.#only : undefined;
  }

  add(stream: S): void {
    if (this.#many === undefined && this.#only === undefined) {
      this.#only = stream;
      return;
    }
    this.#many ??= new Map([[this.#only!.id, this.#only!]]);
    this.#only = undefined;
    this.#many.set(stream.id, stream);
  }

  /** Removes `stream` if it is the one held under its id; true when it was. */
  delete(stream: S): boolean {
    if (this.#only === stream) {
      this.#only = undefined;
      return true;
    }
    if (this.#many?.get(stream.id) !== stream) return false;
    this.#many.delete(stream.id);
    return true;
  }

  get size(): number {
    return this.#many?.size ?? (this.#only === undefined ? 0 : 1);
  }

  /** A snapshot, safe to iterate while streams end (the empty one is shared: a connection that ends with nothing open makes none). */
  list(): readonly S[] {
    if (this.#many !== undefined) return [...this.#many.values()];
    return this.#only === undefined ? NONE : [this.#only];
  }
}

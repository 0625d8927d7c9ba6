/**
 * The receiving half every built-in transport shares: events are pushed to a subscriber
 * when there is one, otherwise buffered for `receiveMessage` (pull). Events buffered
 * before a subscriber arrives are handed to it first, in order.
 */
import { TransportClosedError, type ReceivedMessage, type TransportEvent, type TransportListener } from "../transport.js";

export class Inbox {
  #listener: TransportListener | undefined;
  /** Made on first use: an HTTP POST's inbox holds one message until its connection subscribes, and is never pulled. */
  #buffered: TransportEvent[] | undefined;
  #waiting: Array<{ resolve(m: ReceivedMessage): void; reject(e: Error): void }> | undefined;
  #closed = false;

  get closed(): boolean {
    return this.#closed;
  }

  /** Hands one event to the subscriber, a waiting pull, or the buffer. Nothing after "closed". */
  deliver(event: TransportEvent): void {
    if (this.#closed) return;
    if (event.type === "closed") this.#closed = true;
    if (this.#listener !== undefined) {
      this.#listener(event);
      return;
    }
    if (event.type === "message" && this.#waiting !== undefined && this.#waiting.length > 0) {
      this.#waiting.shift()!.resolve(event);
      return;
    }
    if (event.type === "closed" && this.#waiting !== undefined) {
      for (const waiter of this.#waiting.splice(0)) waiter.reject(new TransportClosedError());
    }
    (this.#buffered ??= []).push(event);
  }

  subscribe(listener: TransportListener): void {
    this.#listener = listener;
    const buffered = this.#buffered;
    if (buffered === undefined) return;
    this.#buffered = undefined;
    for (const event of buffered) listener(event);
  }

  next(): Promise<ReceivedMessage> {
    while (this.#buffered !== undefined && this.#buffered.length > 0) {
      const event = this.#buffered.shift()!;
      if (event.type === "message") return Promise.resolve(event);
      if (event.type === "closed") {
        this.#buffered.unshift(event); // stays closed for every later pull
        return Promise.reject(new TransportClosedError());
      }
      // An error or input-ended event in pull mode is dropped: the pull API has no place for it.
    }
    if (this.#closed) return Promise.reject(new TransportClosedError());
    return new Promise((resolve, reject) => (this.#waiting ??= []).push({ resolve, reject }));
  }
}

/**
 * What an HTTP legacy session's implicit streams send before the session has an output
 * (its first GET stream): kept, coalesced by method and URI, so one list change per kind
 * and one `resources/updated` per subscribed URI wait, a later one replacing the earlier
 * (it says as much). Bounded by the caller's limit: the kinds plus the subscriptions.
 */
import type { JsonRpcNotification } from "../jsonrpc.js";

export class PendingNotifications {
  readonly #waiting = new Map<string, JsonRpcNotification>();

  /** Keeps `notification` in place of an earlier one of its key; a new key beyond `limit` keys is dropped. */
  keep(notification: JsonRpcNotification, limit: number): void {
    const uri = notification.params?.["uri"];
    const key = keyOf(notification.method, typeof uri === "string" ? uri : undefined);
    if (!this.#waiting.has(key) && this.#waiting.size >= limit) return;
    this.#waiting.set(key, notification);
  }

  /** Forgets what waits for a URI the client no longer subscribes to. */
  forget(method: string, uri: string): void {
    this.#waiting.delete(keyOf(method, uri));
  }

  /** Everything kept, in the order first kept. */
  values(): IterableIterator<JsonRpcNotification> {
    return this.#waiting.values();
  }
}

function keyOf(method: string, uri: string | undefined): string {
  return uri === undefined ? method : `${method}\n${uri}`;
}

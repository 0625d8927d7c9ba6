/**
 * The event source a subscription handler joins in `subscribe`: the place where the
 * application announces "the tool list changed" or "resource X was updated", and where
 * every open listen stream hears about it (each wiring its listener to `channel.post`).
 *
 * Topics are plain strings; payloads must be JSON-serialisable so that the same handler
 * code works unchanged over a broker shared by several processes (a Redis implementation
 * is a scaffold add-on: `create-mcp-handler --event-source redis`).
 */

/**
 * Where an event source shared by several processes marks each payload object it delivers
 * with the id of the publish it came from (a non-enumerable property under this registered
 * symbol, so any module can set it without importing the runtime): every process that hears
 * one publish reads the same id, so an application can tell one publish heard twice from two.
 * A payload that is not an object has no id.
 */
export const EVENT_ID: unique symbol = Symbol.for("mcp-gen.event-id");

/** The publish id a shared event source gave `payload`, if it gave one. */
export function eventIdOf(payload: unknown): string | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const id = (payload as { [EVENT_ID]?: unknown })[EVENT_ID];
  return typeof id === "string" ? id : undefined;
}

/** Removes one subscription. Calling it again does nothing. */
export type Unsubscribe = () => void;

/** Receives one published payload. It should only hand the payload on (`channel.post`). */
export type EventListener<Payload = unknown> = (payload: Payload, topic: string) => void;

/** Topic name -> payload type, e.g. `{ tools: { reason: string } }`. */
export type EventTopics = Record<string, unknown>;

export interface EventSource<Topics extends EventTopics = EventTopics> {
  /**
   * Starts delivering `topic` to `listener`; every call is an independent subscription.
   * `onResumed` is called each time the subscription delivers again after a gap, a broker's
   * connection having dropped and come back: what was published meanwhile was missed, so the
   * stream it feeds tells its client to re-read what it watches (a list change per kind it
   * honors, an update per URI) and goes on. An in-process source never has a gap.
   */
  subscribe<Topic extends keyof Topics & string>(topic: Topic, listener: EventListener<Topics[Topic]>, onResumed?: () => void): Unsubscribe;
  /** Delivers `payload` to every subscriber of `topic` (in every process sharing the source). */
  publish<Topic extends keyof Topics & string>(topic: Topic, payload: Topics[Topic]): Promise<void>;
  /**
   * Resolves once every subscription made so far receives what is published from then on.
   * A broker subscribes asynchronously; a handler awaits this in `subscribe` so that the
   * ack, which tells the client its stream is established, is not sent before the broker
   * can deliver. Absent where subscribing takes effect at once (in-process).
   */
  whenSubscribed?(): Promise<void>;
  /**
   * False while a broker the source needs is out of reach (a process then answers /readyz with
   * 503); absent where there is no broker (in-process).
   */
  readonly ready?: boolean;
  /** Releases connections and drops every subscription. */
  close?(): Promise<void>;
}

export interface InProcessEventSourceOptions {
  /** Called when a listener throws; the other listeners still run. Default: a process warning. */
  onListenerError?(error: unknown, topic: string): void;
}

interface Subscription {
  readonly listener: EventListener<any>;
  /** The publish count when it subscribed: it hears publishes numbered above it. */
  readonly since: number;
}

/**
 * An event source for one process. Listeners run synchronously inside `publish`, in
 * subscription order, so a burst reaches every stream's mailbox before `publish` returns.
 */
export class InProcessEventSource<Topics extends EventTopics = EventTopics> implements EventSource<Topics> {
  readonly #topics = new Map<string, Set<Subscription>>();
  /** How many publishes have started; a subscription hears only those started after it. */
  #published = 0;
  readonly #onListenerError: (error: unknown, topic: string) => void;

  constructor(options: InProcessEventSourceOptions = {}) {
    this.#onListenerError = options.onListenerError ?? warnListenerError;
  }

  subscribe<Topic extends keyof Topics & string>(topic: Topic, listener: EventListener<Topics[Topic]>): Unsubscribe {
    // A wrapper object per call, so the same function subscribed twice is two subscriptions.
    const subscription: Subscription = { listener, since: this.#published };
    let subscriptions = this.#topics.get(topic);
    if (subscriptions === undefined) this.#topics.set(topic, (subscriptions = new Set()));
    subscriptions.add(subscription);
    return () => {
      subscriptions.delete(subscription);
      if (subscriptions.size === 0 && this.#topics.get(topic) === subscriptions) this.#topics.delete(topic);
    };
  }

  publish<Topic extends keyof Topics & string>(topic: Topic, payload: Topics[Topic]): Promise<void> {
    const subscriptions = this.#topics.get(topic);
    if (subscriptions !== undefined) {
      // Iterating a Set skips entries deleted during the loop (unsubscribed by an earlier
      // listener) but visits entries added during it: those carry this publish's number
      // or a later one and are skipped, keeping the burst to the subscribers present at
      // publish time without copying them.
      const published = ++this.#published;
      for (const subscription of subscriptions) {
        if (subscription.since >= published) continue;
        try {
          subscription.listener(payload, topic);
        } catch (error) {
          this.#onListenerError(error, topic);
        }
      }
    }
    return Promise.resolve();
  }

  /** How many subscriptions `topic` has (all topics when omitted); useful in tests and metrics. */
  listenerCount(topic?: string): number {
    if (topic !== undefined) return this.#topics.get(topic)?.size ?? 0;
    let total = 0;
    for (const subscriptions of this.#topics.values()) total += subscriptions.size;
    return total;
  }

  async close(): Promise<void> {
    this.#topics.clear();
  }
}

function warnListenerError(error: unknown, topic: string): void {
  const detail = error instanceof Error ? error.message : String(error);
  process.emitWarning(`event listener for topic "${topic}" threw: ${detail}`, "EventSourceWarning");
}

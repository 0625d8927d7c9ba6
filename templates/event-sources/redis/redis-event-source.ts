/**
 * An event source shared by every server process through Redis pub/sub, so that a change
 * made on one process (a tool call that edits the tool list) reaches the listen streams
 * open on all the others. It has the same shape as the runtime's `EventSource`
 * (`subscribe(topic, listener) -> unsubscribe`, `publish(topic, payload)`), so a
 * subscription handler does not change when it moves from `InProcessEventSource` to this.
 *
 * Delivery is what Redis pub/sub gives: at most once, to the processes subscribed at that
 * moment. On a Redis Cluster (a `redis+cluster://` URL) it is the same plain pub/sub: a PUBLISH
 * reaches every node, so a subscriber connected to any node hears it (sharded pub/sub would
 * deliver a channel only on its slot's shard, and need one subscription per shard). Each
 * topic's publishes go through the node owning its channel's slot, so every subscriber hears
 * them in one order, the order each process sent them in.
 * While the broker is unreachable, `publish` fails fast (the caller learns the
 * event went nowhere), open listen streams stay open, and both connections retry with
 * capped exponential backoff; once Redis is back, every topic is subscribed again,
 * delivery resumes, and each subscription is told it may have missed events (`onResumed`).
 *
 * A broker that stops answering without closing its connections (a partition, a frozen
 * process) is bounded too: every command fails after `commandTimeoutMs`, and a PING every
 * `probeEveryMs` that gets no answer within `probeTimeoutMs`, while nothing else sent is
 * answered either, makes `ready` false (and `publish` fail at once) until one is answered.
 */
import { randomUUID } from "node:crypto";
import {
  AnswerProbe,
  checkedUrl,
  clientFor,
  DEFAULT_REDIS_URL,
  publisherOn,
  RedisTimeoutError,
  within,
  type ProbeOptions,
  type Publish,
  type RedisClient,
} from "./redis-connection.js";

export { DEFAULT_REDIS_URL, RedisTimeoutError } from "./redis-connection.js";

/**
 * Where each delivered payload object carries the id of its publish (the runtime's
 * `EVENT_ID`, a registered symbol): every process hears the same id. A message starts with
 * `MESSAGE_TAG <id>` and a newline; one without it (a foreign publisher's JSON) has no id.
 */
export const EVENT_ID: unique symbol = Symbol.for("mcp-gen.event-id");
const MESSAGE_TAG = "mcp-event ";

/** Removes one subscription. Calling it again does nothing. */
export type Unsubscribe = () => void;
export type EventListener<Payload = unknown> = (payload: Payload, topic: string) => void;
export type EventTopics = Record<string, unknown>;

export interface RedisEventSourceOptions extends ProbeOptions {
  /** Broker URL; `redis+cluster://host:port[,host:port...]` for a Redis Cluster, `redis+sentinel://host:port[,host:port...]/<master name>` for a master its sentinels name. Default: `$REDIS_URL`, else redis://127.0.0.1:6379. */
  url?: string;
  /** Prepended to each topic to form the Redis channel, so apps can share a broker. */
  channelPrefix?: string;
  /** How long `connectRedisEventSource` keeps trying before it gives up. Default 3000 ms. */
  startTimeoutMs?: number;
  /** Upper bound of the delay between reconnection attempts. Default 5000 ms. */
  maxBackoffMs?: number;
  /** How long one command (a publish, a subscribe) may wait for Redis before it fails. Default 3000 ms. */
  commandTimeoutMs?: number;
  /** Where connection changes, timed-out commands and bad messages are reported. Default: one line on stderr. */
  log?(line: string): void;
}

/** The broker could not be reached when the server started (or is down right now). */
export class RedisUnreachableError extends Error {
  /** The runtime tells the client of a request that failed on it to retry shortly. */
  readonly retryable = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RedisUnreachableError";
  }
}

interface Subscription {
  readonly listener: EventListener<any>;
  /** Told each time the subscriber connection is back after it dropped (events published meanwhile were missed). */
  readonly onResumed: (() => void) | undefined;
}

/**
 * Connects a publisher and a subscriber connection to Redis. Rejects with a
 * `RedisUnreachableError` naming the URL and what to do when the broker cannot be reached
 * within `startTimeoutMs`.
 */
export async function connectRedisEventSource<Topics extends EventTopics = EventTopics>(
  options: RedisEventSourceOptions = {},
): Promise<RedisEventSource<Topics>> {
  const source = new RedisEventSource<Topics>(options);
  await source.start();
  return source;
}

/**
 * The event source at once, connecting in the background: while Redis is out of reach it keeps
 * trying with capped backoff, for as long as it takes (`ready` stays false and `publish` fails
 * fast meanwhile; subscriptions wait for the connection). What a server uses so that it starts,
 * answers /healthz and says it is not ready, rather than exiting, when it starts before Redis.
 * A URL that is not a Redis URL still throws at once.
 */
export function openRedisEventSource<Topics extends EventTopics = EventTopics>(
  options: Omit<RedisEventSourceOptions, "startTimeoutMs"> = {},
): RedisEventSource<Topics> {
  const source = new RedisEventSource<Topics>({ ...options, startTimeoutMs: Number.POSITIVE_INFINITY });
  source.start().catch(() => {}); // it only ends by close(); each outage is logged by #watch
  return source;
}

export class RedisEventSource<Topics extends EventTopics = EventTopics> {
  readonly url: string;
  readonly #where: string;
  readonly #prefix: string;
  readonly #startTimeoutMs: number;
  readonly #maxBackoffMs: number;
  readonly #commandTimeoutMs: number;
  /** Whether Redis answers the publisher: false while it is connected but silent. */
  readonly #probe: AnswerProbe;
  readonly #log: (line: string) => void;
  readonly #publisher: RedisClient;
  /** PUBLISH on the publisher, each topic's in the order sent (on a cluster, through its channel's node). */
  readonly #publish: Publish;
  readonly #subscriber: RedisClient;
  readonly #topics = new Map<string, Set<Subscription>>();
  /** SUBSCRIBE commands Redis has not confirmed yet. */
  readonly #pending = new Set<Promise<unknown>>();
  /**
   * The topics a SUBSCRIBE was sent for and has not failed: the client holds their listeners
   * and subscribes them again itself after a reconnection. Any other topic is subscribed once
   * the connection is up (a cluster client refuses a SUBSCRIBE before it is connected, where a
   * single node's would queue it).
   */
  readonly #requested = new Set<string>();
  #started = false;
  #startFailure: string | undefined;
  #closed = false;

  constructor(options: RedisEventSourceOptions = {}) {
    this.url = options.url ?? process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
    this.#where = checkedUrl(this.url);
    this.#prefix = options.channelPrefix ?? "mcp:events:";
    this.#startTimeoutMs = options.startTimeoutMs ?? 3000;
    this.#maxBackoffMs = options.maxBackoffMs ?? 5000;
    this.#commandTimeoutMs = options.commandTimeoutMs ?? 3000;
    this.#log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    const startedAt = Date.now();
    const socket = {
      reconnectStrategy: (retries: number, cause: Error) => this.#retryDelay(retries, cause, startedAt),
    };
    // Publishing while disconnected fails at once instead of piling up in memory.
    this.#publisher = clientFor(this.url, { socket, disableOfflineQueue: true });
    this.#publish = publisherOn(this.#publisher, this.url);
    this.#subscriber = clientFor(this.url, { socket });
    this.#watch(this.#publisher, "publisher");
    this.#watch(this.#subscriber, "subscriber");
    // `ready` follows the publisher's answers; each change is logged once.
    this.#probe = new AnswerProbe(this.#publisher, options, (answering) =>
      this.#log(
        answering
          ? `redis event source: Redis at ${this.#where} answers again`
          : `redis event source: Redis at ${this.#where} did not answer a PING within ${this.#probe.timeoutMs} ms; not ready until it does`,
      ),
    );
  }

  /** Opens both connections; see `connectRedisEventSource`. */
  async start(): Promise<void> {
    try {
      await Promise.all([this.#publisher.connect(), this.#subscriber.connect()]);
    } catch (error) {
      this.#publisher.destroy();
      this.#subscriber.destroy();
      const cause = this.#startFailure ?? rootCause(error);
      throw new RedisUnreachableError(`cannot reach Redis at ${this.#where} (${cause}); start redis-server there or set REDIS_URL to a reachable broker`, {
        cause: error,
      });
    }
    this.#started = true;
    this.#subscribeMissing();
  }

  /**
   * Delivers `topic` to `listener`. Each time the subscriber connection is back after it
   * dropped, `onResumed` is called once its topics are subscribed again: pub/sub keeps nothing
   * for a connection that is away, so what was published meanwhile was missed, and the stream
   * this feeds tells its client to read again what it watches.
   */
  subscribe<Topic extends keyof Topics & string>(topic: Topic, listener: EventListener<Topics[Topic]>, onResumed?: () => void): Unsubscribe {
    const subscription: Subscription = { listener, onResumed };
    let subscriptions = this.#topics.get(topic);
    if (subscriptions === undefined) {
      this.#topics.set(topic, (subscriptions = new Set()));
      this.#subscribeTopic(topic);
    }
    subscriptions.add(subscription);
    return () => {
      if (!subscriptions.delete(subscription) || subscriptions.size > 0) return;
      if (this.#topics.get(topic) !== subscriptions) return;
      this.#topics.delete(topic);
      if (!this.#closed && this.#requested.delete(topic)) {
        this.#command(this.#subscriber.unsubscribe(this.#prefix + topic, this.#onMessage), `unsubscribe from "${topic}"`);
      }
    };
  }

  async publish<Topic extends keyof Topics & string>(topic: Topic, payload: Topics[Topic]): Promise<void> {
    // Known not to answer: fail now rather than after the command timeout.
    if (this.#publisher.isReady && !this.#probe.answering) throw this.#silent(`event "${topic}" was not published`);
    let cause: unknown;
    if (this.#publisher.isReady) {
      try {
        // A payload with no JSON form (undefined) arrives as null, as a topic-only event.
        const message = `${MESSAGE_TAG}${randomUUID()}\n${JSON.stringify(payload) ?? "null"}`;
        const channel = this.#prefix + topic;
        await within(this.#commandTimeoutMs, this.#probe.track(this.#publish(channel, message, channel)));
        return;
      } catch (error) {
        if (error instanceof RedisTimeoutError) throw this.#silent(`event "${topic}" was not published`, error);
        // The connection dropped under this publish; any other failure is the caller's.
        if (this.#publisher.isReady) throw error;
        cause = error;
      }
    }
    throw new RedisUnreachableError(`Redis at ${this.#where} is unreachable (reconnecting); event "${topic}" was not published`, { cause });
  }

  /**
   * Resolves once Redis has confirmed every subscription made so far, so that a publish
   * from any process reaches them. During an outage it resolves at once: the subscriptions
   * are made again on reconnection, and waiting would hold the listen request up.
   */
  whenSubscribed(): Promise<void> {
    if (!this.#subscriber.isReady) return Promise.resolve();
    // Nor longer than a command may take: a broker that does not answer holds no listen request.
    return within(this.#commandTimeoutMs, Promise.all(this.#pending)).then(
      () => undefined,
      () => undefined,
    );
  }

  /** Whether both connections are up and Redis answers (false during an outage, and while it does not answer). */
  get ready(): boolean {
    return this.#publisher.isReady && this.#subscriber.isReady && this.#probe.answering;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#probe.stop();
    this.#topics.clear();
    await Promise.all([shutDown(this.#publisher), shutDown(this.#subscriber)]);
  }

  /** Parses each message once and hands the same payload to every local listener. */
  readonly #onMessage = (message: string, channel: string): void => {
    const topic = channel.slice(this.#prefix.length);
    const subscriptions = this.#topics.get(topic);
    if (subscriptions === undefined) return;
    const tagged = message.startsWith(MESSAGE_TAG) ? message.indexOf("\n") : -1;
    let payload: unknown;
    try {
      payload = JSON.parse(tagged === -1 ? message : message.slice(tagged + 1));
    } catch {
      this.#log(`redis event source: dropped a message on "${channel}" that is not JSON`);
      return;
    }
    if (tagged !== -1 && typeof payload === "object" && payload !== null) {
      Object.defineProperty(payload, EVENT_ID, { value: message.slice(MESSAGE_TAG.length, tagged) });
    }
    for (const subscription of [...subscriptions]) {
      if (!subscriptions.has(subscription)) continue;
      try {
        subscription.listener(payload, topic);
      } catch (error) {
        this.#log(`redis event source: a listener for "${topic}" threw: ${rootCause(error)}`);
      }
    }
  };

  /** A command Redis did not answer in time: the error its caller gets, logged with its cause. */
  #silent(what: string, cause?: unknown): RedisUnreachableError {
    const waited = cause === undefined ? `a PING within ${this.#probe.timeoutMs} ms` : `within ${this.#commandTimeoutMs} ms`;
    const error = new RedisUnreachableError(`Redis at ${this.#where} did not answer ${waited}; ${what}`, { cause });
    this.#log(`redis event source: ${error.message}`);
    return error;
  }

  /** Before start: keep trying until the start timeout. After: capped backoff, forever. */
  #retryDelay(retries: number, cause: Error, startedAt: number): number | Error {
    if (this.#closed) return new Error("event source closed");
    if (!this.#started && Date.now() - startedAt >= this.#startTimeoutMs) {
      this.#startFailure = `${rootCause(cause)}, ${retries + 1} attempts in ${this.#startTimeoutMs} ms`;
      return new Error(this.#startFailure);
    }
    const jitter = Math.floor(Math.random() * 100);
    return Math.min(this.#maxBackoffMs, 100 * 2 ** Math.min(retries, 16)) + jitter;
  }

  /** Logs the first error of each outage and the recovery, not every retry. */
  #watch(client: RedisClient, role: string): void {
    let down = false;
    const waiting = this.#startTimeoutMs === Number.POSITIVE_INFINITY; // started in the background
    client.on("error", (error: unknown) => {
      if (down || this.#closed || (!this.#started && !waiting)) return;
      down = true;
      const what = this.#started ? "lost" : "cannot reach";
      this.#log(`redis event source: ${role} ${what} ${this.#where} (${rootCause(error)}); reconnecting with backoff`);
    });
    client.on("ready", () => {
      if (client === this.#subscriber) this.#subscribeMissing();
      if (!down) return;
      down = false;
      this.#log(`redis event source: ${role} reconnected to ${this.#where}`);
      // node-redis subscribes every topic again before it is ready: from now on nothing is missed.
      if (client === this.#subscriber) this.#resumed();
    });
  }

  /** Tells every subscription that events may have been missed while the subscriber was away. */
  #resumed(): void {
    for (const subscriptions of this.#topics.values()) {
      for (const subscription of [...subscriptions]) {
        try {
          subscription.onResumed?.();
        } catch (error) {
          this.#log(`redis event source: a resumption listener threw: ${rootCause(error)}`);
        }
      }
    }
  }

  /** SUBSCRIBE for `topic`, once the connection is up; one that fails is sent again at the next `ready`. */
  #subscribeTopic(topic: string): void {
    if (!this.#started || this.#closed || this.#requested.has(topic)) return;
    this.#requested.add(topic);
    this.#command(this.#subscriber.subscribe(this.#prefix + topic, this.#onMessage), `subscribe to "${topic}"`, () => this.#requested.delete(topic));
  }

  /** Subscribes every topic that has listeners and no SUBSCRIBE sent (or one that failed). */
  #subscribeMissing(): void {
    for (const topic of this.#topics.keys()) this.#subscribeTopic(topic);
  }

  #command(command: Promise<unknown>, what: string, failed?: () => void): void {
    const settled = command.catch((error: unknown) => {
      failed?.();
      if (!this.#closed) this.#log(`redis event source: could not ${what}: ${rootCause(error)}`);
    });
    this.#pending.add(settled);
    void settled.finally(() => this.#pending.delete(settled));
  }
}

async function shutDown(client: RedisClient): Promise<void> {
  if (!client.isOpen) return;
  if (!client.isReady) return client.destroy(); // an outage: nothing to flush
  await client.close();
}

function rootCause(error: unknown): string {
  let current: unknown = error;
  // node-redis wraps the socket error in its own; the innermost one says what happened.
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause !== undefined; depth++) {
    current = current.cause;
  }
  if (current instanceof AggregateError && current.errors.length > 0) current = current.errors[0];
  if (current instanceof Error) return (current as NodeJS.ErrnoException).code ?? current.message;
  return String(current);
}

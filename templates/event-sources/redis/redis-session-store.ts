/**
 * The runtime's `LegacySessionStore` in Redis, so that every replica behind a load balancer
 * (no stickiness needed) serves every 2025-11-25 session: `createServer({ legacy: { store:
 * openRedisSessionStore() } })` (or `await connectRedisSessionStore()`, which waits until connected). It has the runtime's shape without importing it,
 * like the event source and task store beside it.
 *
 * - A session is one hash (`<prefix>s:{<id>}`: its record as JSON and a few counters) that
 *   Redis expires after `idleMs` unless touched: by the client's requests, and while a GET
 *   stream is carried, by that replica until `maxSilentMs` after the client last sent one.
 * - Its GET stream's replay window is a Redis Stream (`<prefix>s:{<id>}:events`, entry ids
 *   `0-<seq>`), bounded in events and bytes by one script that also publishes each event on
 *   `<prefix>events:<id>` for the replica carrying the stream (the replicas waiting for
 *   answers are `<prefix>s:{<id>}:waiting`).
 * - The `{<id>}` in every key of a session is a Redis Cluster hash tag: a session's keys share
 *   one slot, so the scripts that touch several of them run on a cluster, while different
 *   sessions spread over its masters. Keys written before the tag (`<prefix>s:<id>`) are not
 *   read: a deployment moving to this layout starts with no sessions, and their clients open new ones.
 * - Record changes and ends are published on `<prefix>changes`; an answer to a request the
 *   server sent its client is published to the replica that waits for it (`<prefix>answers:<replica>`).
 * - One replica writes a session's events, its writer (the hash's `writer`): the one that
 *   created or restored it, until another `claim`s it. A replica counts as running while it
 *   listens on its answers channel (`PUBSUB NUMSUB`, summed over a cluster's nodes): a killed
 *   or stopped one drops off at once, so a claim needs no heartbeat written while all is well.
 * - Every command fails after `commandTimeoutMs` (a broker that does not answer holds no request
 *   longer), and `ready` is false while a PING goes unanswered and nothing else is. After a gap
 *   in either connection the runtime hears `reconnected`: it stores again the sessions a broker
 *   that came back empty lost (`restore`), and its GET streams read what they missed.
 * - Behind sentinels, a session's creation, record, events and end are acknowledged only once
 *   the replicas that could take over hold them (`redis-replicas.ts`).
 */
import { randomUUID } from "node:crypto";
import { AnswerProbe, clientFor, DEFAULT_REDIS_URL, subscriberCounts, within, type ProbeOptions, type RedisClient } from "./redis-connection.js";
import { replicaAcksFor, type ReplicaAcks } from "./redis-replicas.js";

export { DEFAULT_REDIS_URL, RedisTimeoutError } from "./redis-connection.js";
export { RedisNotReplicatedError } from "./redis-replicas.js";

/** The runtime's SessionRecord, as far as the store reads it. */
export interface SessionRecordLike {
  readonly id: string;
}
export interface SessionKeepingLike {
  readonly idleMs: number;
  readonly maxSilentMs: number;
  readonly maxEvents: number;
  readonly maxBytes: number;
}
export type SessionChangeLike<R> =
  | { readonly type: "saved"; readonly record: R }
  | { readonly type: "ended"; readonly id: string }
  | { readonly type: "cancelled"; readonly id: string; readonly requestId: string | number }
  | { readonly type: "reconnected" };
export interface StoredEventLike {
  readonly seq: number;
  readonly json: string;
}
/** A JSON-RPC response from the client, as far as the store reads it. */
export interface ResponseLike {
  readonly id?: string | number | null;
}

export interface RedisSessionStoreOptions extends ProbeOptions {
  /** Broker URL; `redis+cluster://host:port[,host:port...]` for a Redis Cluster, `redis+sentinel://host:port[,host:port...]/<master name>` for a master its sentinels name. Default: `$REDIS_URL`, else redis://127.0.0.1:6379. */
  url?: string;
  /** Prepended to every key and channel, so apps can share a broker. Default "mcp:legacy:". */
  prefix?: string;
  /** How long one command may wait for Redis before it fails (the request needing it gets an error). Default 3000 ms. */
  commandTimeoutMs?: number;
}

const CREATE = `
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'seq', 0, 'bytes', 0, 'dropped', 0, 'last', ARGV[3], 'reqs', 0, 'writer', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1`;

/** Replaces the record of a session that still exists. */
const SAVE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1`;

/** Stores a session again when the broker lost it, its window numbered from ARGV[3] (above any event it held); 0 when it still has it. */
const RESTORE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'seq', ARGV[3], 'bytes', 0, 'dropped', 0, 'last', ARGV[3], 'reqs', 0, 'first', 1, 'writer', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

const END = `
redis.call('DEL', unpack(KEYS))
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1`;

/** A client's request (ARGV[1] = 1) records when; a carrying replica's keeps it alive only within maxSilentMs of that. */
const TOUCH = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] == '1' then redis.call('HSET', KEYS[1], 'last', ARGV[2])
elseif tonumber(ARGV[2]) - tonumber(redis.call('HGET', KEYS[1], 'last') or '0') >= tonumber(ARGV[4]) then return 0 end
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return 1`;

/** Makes ARGV[2] the session's writer if ARGV[1] still is ('' for none); 1 when it did. */
const CLAIM = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if (redis.call('HGET', KEYS[1], 'writer') or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'writer', ARGV[2])
return 1`;

/**
 * One event: numbered, kept within the window (the oldest dropped first, the highest dropped
 * seq remembered) and published; -1 when the session is gone, -2 when another replica is its
 * writer (ARGV[6] is this one). The window's expiry is set when it is made; `touch` extends it
 * with the session's.
 */
const APPEND = `
local state = redis.call('HMGET', KEYS[1], 'seq', 'writer')
if not state[1] then return -1 end
if state[2] and state[2] ~= ARGV[6] then return -2 end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
local size = string.len(ARGV[1])
if size > tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], 'dropped', seq)
else
  redis.call('XADD', KEYS[2], '0-' .. seq, 'j', ARGV[1])
  local bytes = redis.call('HINCRBY', KEYS[1], 'bytes', size)
  local count = redis.call('XLEN', KEYS[2])
  while count > tonumber(ARGV[2]) or bytes > tonumber(ARGV[3]) do
    local oldest = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)[1]
    redis.call('XDEL', KEYS[2], oldest[1])
    bytes = redis.call('HINCRBY', KEYS[1], 'bytes', -string.len(oldest[2][2]))
    redis.call('HSET', KEYS[1], 'dropped', string.sub(oldest[1], 3))
    count = count - 1
  end
  if count == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
end
redis.call('PUBLISH', ARGV[5], seq .. '\\n' .. ARGV[1])
return seq`;

/** The events after ARGV[1]; nil when the window already dropped one of them. */
const AFTER = `
if tonumber(redis.call('HGET', KEYS[1], 'dropped') or '0') > tonumber(ARGV[1]) then return false end
return redis.call('XRANGE', KEYS[2], '(0-' .. ARGV[1], '+')`;

const AWAIT = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/** Hands an answer to the replica waiting for it, once. */
const ANSWER = `
local target = redis.call('HGET', KEYS[1], ARGV[1])
if not target then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('PUBLISH', target, ARGV[2])
return 1`;

/** Connects the store; `R` and `A` (the runtime's SessionRecord and JsonRpcResponse) are inferred where a LegacySessionStore is expected. */
/**
 * The store, returned at once and connecting in the background: while Redis is out of reach
 * its commands fail (a session request gets -32603) and it retries, as the event source does.
 */
export function openRedisSessionStore<R extends SessionRecordLike = SessionRecordLike, A extends ResponseLike = ResponseLike>(
  options: RedisSessionStoreOptions = {},
): RedisSessionStore<R, A> {
  const store = new RedisSessionStore<R, A>(options);
  store.start().catch(() => {}); // connect() only gives up on close()
  return store;
}

export async function connectRedisSessionStore<R extends SessionRecordLike = SessionRecordLike, A extends ResponseLike = ResponseLike>(
  options: RedisSessionStoreOptions = {},
): Promise<RedisSessionStore<R, A>> {
  const store = new RedisSessionStore<R, A>(options);
  await store.start();
  return store;
}

export class RedisSessionStore<R extends SessionRecordLike = SessionRecordLike, A extends ResponseLike = ResponseLike> {
  readonly url: string;
  readonly #prefix: string;
  readonly #client: RedisClient;
  readonly #subscriber: RedisClient;
  /** This replica's answers channel: where another replica sends an answer a handler here waits for. */
  readonly #answers: string;
  /** This replica, as a session's writer; its answers channel says whether it runs. */
  readonly #replica = randomUUID();
  readonly #watchers = new Set<(change: SessionChangeLike<R>) => void>();
  /** `<session>\n<request id>` -> the handler's wait on this replica. */
  readonly #waiting = new Map<string, (response: A) => void>();
  readonly #commandTimeoutMs: number;
  /** Whether Redis answers: false while it is connected but silent. */
  readonly #probe: AnswerProbe;
  /** Behind sentinels, how a write waits for the replicas that could take over. */
  readonly #acks: ReplicaAcks | undefined;

  constructor(options: RedisSessionStoreOptions = {}) {
    this.url = options.url ?? process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
    this.#prefix = options.prefix ?? "mcp:legacy:";
    this.#answers = this.#answersOf(this.#replica);
    this.#commandTimeoutMs = options.commandTimeoutMs ?? 3000;
    this.#client = clientFor(this.url, { disableOfflineQueue: true });
    this.#subscriber = clientFor(this.url, {});
    this.#watchGaps(this.#client);
    this.#watchGaps(this.#subscriber);
    this.#probe = new AnswerProbe(this.#client, options);
    this.#acks = replicaAcksFor(this.url, this.#client, Math.floor(this.#commandTimeoutMs / 2));
  }

  /** Whether Redis is connected and answers: while it does not, a new session is refused at once. */
  get ready(): boolean {
    return this.#client.isReady && this.#probe.answering;
  }

  async start(): Promise<void> {
    await Promise.all([this.#client.connect(), this.#subscriber.connect()]);
    await this.#subscriber.subscribe(`${this.#prefix}changes`, (message) => this.#changed(message));
    await this.#subscriber.subscribe(this.#answers, (message) => this.#answered(message));
  }

  async create(record: R, keeping: SessionKeepingLike): Promise<void> {
    await this.#write(
      CREATE,
      [this.#key(record.id)],
      [JSON.stringify(record), keeping.idleMs, Date.now(), this.#changes, JSON.stringify({ type: "saved", record }), this.#replica],
    );
  }

  async restore(record: R, keeping: SessionKeepingLike): Promise<boolean> {
    // Numbered from now in ms: above any seq the lost window reached, unless it took more than one event a millisecond.
    return (await this.#write(RESTORE, [this.#key(record.id)], [JSON.stringify(record), keeping.idleMs, Date.now(), this.#replica])) === 1;
  }

  async load(id: string): Promise<R | undefined> {
    const json = await this.#bounded(this.#client.hGet(this.#key(id), "record"));
    return json === null || json === undefined ? undefined : (JSON.parse(json) as R);
  }

  async save(record: R): Promise<void> {
    await this.#write(SAVE, [this.#key(record.id)], [JSON.stringify(record), this.#changes, JSON.stringify({ type: "saved", record })]);
  }

  async end(id: string): Promise<void> {
    await this.#write(END, this.#keys(id), [this.#changes, JSON.stringify({ type: "ended", id })]);
  }

  touch(id: string, byClient: boolean, keeping: SessionKeepingLike): void {
    this.#eval(TOUCH, this.#keys(id), [byClient ? 1 : 0, Date.now(), keeping.idleMs, keeping.maxSilentMs]).catch(() => {});
  }

  cancel(id: string, requestId: string | number): void {
    this.#client.publish(this.#changes, JSON.stringify({ type: "cancelled", id, requestId })).catch(() => {});
  }

  /** One EXISTS per session (sent together): on a cluster, their keys are on different nodes. */
  async alive(ids: readonly string[]): Promise<ReadonlySet<string>> {
    const found = await this.#bounded(Promise.all(ids.map((id) => this.#client.exists(this.#key(id)))));
    return new Set(ids.filter((_, index) => found[index] === 1));
  }

  watch(listener: (change: SessionChangeLike<R>) => void): () => void {
    this.#watchers.add(listener);
    return () => void this.#watchers.delete(listener);
  }

  /** The event's seq; undefined when the session is gone; false when another replica writes the session's events. */
  async append(id: string, json: string, keeping: SessionKeepingLike): Promise<number | undefined | false> {
    const seq = (await this.#write(
      APPEND,
      [this.#key(id), `${this.#key(id)}:events`],
      [json, keeping.maxEvents, keeping.maxBytes, keeping.idleMs, this.#eventsChannel(id), this.#replica],
    )) as number;
    return seq === -2 ? false : seq > 0 ? seq : undefined;
  }

  /**
   * Becomes the writer of each of `ids` whose writer no longer runs (or that has none): one
   * HGET per session, one NUMSUB for their writers together, one script per session taken.
   */
  async claim(ids: readonly string[]): Promise<ReadonlySet<string>> {
    const writers = await this.#bounded(Promise.all(ids.map((id) => this.#client.hGet(this.#key(id), "writer"))));
    const running = await this.#running(writers);
    const taken = await Promise.all(
      ids.map(async (id, index) => {
        const writer = writers[index] ?? "";
        if (writer === this.#replica || running.has(writer)) return false;
        return (await this.#eval(CLAIM, [this.#key(id)], [writer, this.#replica])) === 1;
      }),
    );
    return new Set(ids.filter((_, index) => taken[index]));
  }

  async after(id: string, seq: number): Promise<StoredEventLike[] | undefined> {
    const entries = (await this.#eval(AFTER, [this.#key(id), `${this.#key(id)}:events`], [seq])) as Array<[string, string[]]> | null;
    if (entries === null) return undefined;
    return entries.map(([entryId, fields]) => ({ seq: Number(entryId.slice(2)), json: fields[1]! }));
  }

  async latest(id: string): Promise<number> {
    return Number((await this.#bounded(this.#client.hGet(this.#key(id), "seq"))) ?? 0);
  }

  async firstStream(id: string): Promise<boolean> {
    return (await this.#bounded(this.#client.hSetNX(this.#key(id), "first", "1"))) === 1;
  }

  async follow(id: string, listener: (event: StoredEventLike) => void): Promise<() => void> {
    const channel = this.#eventsChannel(id);
    const onMessage = (message: string) => {
      const newline = message.indexOf("\n");
      listener({ seq: Number(message.slice(0, newline)), json: message.slice(newline + 1) });
    };
    await this.#bounded(this.#subscriber.subscribe(channel, onMessage));
    let following = true;
    return () => {
      if (!following) return;
      following = false;
      this.#subscriber.unsubscribe(channel, onMessage).catch(() => {});
    };
  }

  async nextRequestId(id: string): Promise<number> {
    return Number(await this.#bounded(this.#client.hIncrBy(this.#key(id), "reqs", 1)));
  }

  async awaitAnswer(id: string, requestId: number, ttlMs: number, listener: (response: A) => void): Promise<() => void> {
    const key = `${id}\n${requestId}`;
    this.#waiting.set(key, listener);
    try {
      await this.#eval(AWAIT, [`${this.#key(id)}:waiting`], [requestId, this.#answers, ttlMs]);
    } catch (error) {
      this.#waiting.delete(key);
      throw error;
    }
    return () => {
      if (!this.#waiting.delete(key)) return;
      this.#client.hDel(`${this.#key(id)}:waiting`, String(requestId)).catch(() => {});
    };
  }

  async answer(id: string, response: A): Promise<boolean> {
    if (typeof response.id !== "number") return false;
    const sent = await this.#eval(ANSWER, [`${this.#key(id)}:waiting`], [response.id, JSON.stringify({ session: id, response })]);
    return sent === 1;
  }

  async close(): Promise<void> {
    this.#probe.stop();
    this.#watchers.clear();
    this.#waiting.clear();
    await Promise.all([this.#subscriber, this.#client].map((client) => (client.isOpen ? client.close() : undefined)));
  }

  /** Which of the other `replicas` still run: those listening on their answers channel. */
  async #running(replicas: ReadonlyArray<string | null | undefined>): Promise<ReadonlySet<string>> {
    const others = [...new Set(replicas.filter((replica): replica is string => typeof replica === "string" && replica !== this.#replica))];
    if (others.length === 0) return new Set();
    const counts = await this.#bounded(
      subscriberCounts(
        this.#client,
        this.url,
        others.map((other) => this.#answersOf(other)),
      ),
    );
    return new Set(others.filter((_, index) => counts[index]! > 0));
  }

  get #changes(): string {
    return `${this.#prefix}changes`;
  }

  /** The session's hash; its other keys add a suffix to it, keeping the `{<id>}` tag that puts them in its slot. */
  #key(id: string): string {
    return `${this.#prefix}s:{${id}}`;
  }

  /** Every key of a session (touched and ended together). */
  #keys(id: string): string[] {
    const key = this.#key(id);
    return [key, `${key}:events`, `${key}:waiting`];
  }

  #answersOf(replica: string): string {
    return `${this.#prefix}answers:${replica}`;
  }

  #eventsChannel(id: string): string {
    return `${this.#prefix}events:${id}`;
  }

  #eval(script: string, keys: string[], args: Array<string | number>): Promise<unknown> {
    return this.#bounded(this.#client.eval(script, { keys, arguments: args.map(String) }));
  }

  /** A script whose write the runtime acknowledges: behind sentinels, sent as `ReplicaAcks` says. */
  #write(script: string, keys: string[], args: Array<string | number>): Promise<unknown> {
    if (this.#acks === undefined) return this.#eval(script, keys, args);
    return this.#bounded(this.#acks.write((multi) => multi.eval(script, { keys, arguments: args.map(String) })));
  }

  /** Every command the runtime waits for is bounded by `commandTimeoutMs`, and its answer counts as Redis answering. */
  #bounded<T>(command: Promise<T>): Promise<T> {
    return within(this.#commandTimeoutMs, this.#probe.track(command));
  }

  /** Failures surface on the commands themselves (without a listener node-redis would throw); a connection back after one is told to the runtime. */
  #watchGaps(client: RedisClient): void {
    let down = false;
    client.on("error", () => void (down = true));
    client.on("ready", () => {
      if (!down) return;
      down = false;
      this.#tell({ type: "reconnected" });
    });
  }

  #tell(change: SessionChangeLike<R>): void {
    for (const watcher of this.#watchers) watcher(change);
  }

  #changed(message: string): void {
    let change: SessionChangeLike<R>;
    try {
      change = JSON.parse(message) as SessionChangeLike<R>;
    } catch {
      return; // not ours: a foreign publisher on the channel
    }
    if (change.type !== "reconnected") this.#tell(change); // only this replica's connection says that
  }

  #answered(message: string): void {
    let parsed: { session: string; response: A };
    try {
      parsed = JSON.parse(message) as { session: string; response: A };
    } catch {
      return;
    }
    const key = `${parsed.session}\n${String(parsed.response.id)}`;
    const listener = this.#waiting.get(key);
    this.#waiting.delete(key);
    listener?.(parsed.response);
  }
}

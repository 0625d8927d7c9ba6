/**
 * The runtime's `TaskStore` in Redis, so that every server process sharing a broker serves the
 * same tasks: one created on process A is read, updated and cancelled through process B, and
 * the work running on A learns of B's cancel or answers. It has the runtime's `TaskStore`
 * shape (create, get, update, watch, close) without importing the runtime, like the event
 * source beside it: `createServer({ tasks: { store: await connectRedisTaskStore() } })`.
 *
 * - A task is one key (`<prefix>task:{<id>}`, JSON) that Redis expires after the task's TTL
 *   plus a grace period (so tasks/get can still say "expired"), and, until it ends, one member
 *   of a sorted set by expiry (`<prefix>live`, members the task keys) that bounds how many
 *   unfinished tasks the broker holds (a finished task leaves the set: it waits for its TTL in
 *   Redis's memory, which the broker's own `maxmemory` bounds).
 * - The `{<id>}` is a Redis Cluster hash tag: a task's key and its lease share a slot, while
 *   tasks spread over its masters. The live set is one key on one node: it is written in its
 *   own command, never in a script with a task's keys (a task's lease is written, then the
 *   task counted, then written; a step that fails takes the earlier ones back). Keys
 *   written before the tag (`<prefix>task:<id>`) are not read: a deployment moving to this
 *   layout starts with no tasks.
 * - `create` resolves once Redis has the key: Redis answers a write only after applying it, so
 *   a `get` from any process then finds it (the extension's "durably created"). Behind
 *   sentinels, `create` and `update` also wait until the replicas that could take over hold
 *   the write (`redis-replicas.ts`), so a failover cannot lose what they acknowledged.
 * - `update` is compare-and-set in one script, retried when another writer came first.
 * - Every write is published on `<prefix>changes`; `watch` listeners hear them from every
 *   process (their own writes included, through the same path), each task's in the order
 *   they were made (on a cluster, its writes are published through the node holding it).
 * - The process that creates a task runs it, and holds a lease on it (`<key>:lease`, expiring
 *   after `leaseMs`) that it renews every third of that until the task ends. Every process
 *   sweeps, every `sweepMs`, for unfinished tasks whose lease lapsed (their process died) and
 *   marks them failed, so a task outlives its process by at most `leaseMs + sweepMs`.
 * - `ready` is false while Redis is out of reach, and while a PING sent every `probeEveryMs`
 *   goes unanswered past `probeTimeoutMs` and nothing else sent is answered either (connected
 *   but silent: a partition, a paused server), as for the session store and event source.
 */
import {
  AnswerProbe,
  checkedUrl,
  clientFor,
  DEFAULT_REDIS_URL,
  publisherOn,
  RedisOutOfReachError,
  within,
  type ProbeOptions,
  type Publish,
  type RedisClient,
} from "./redis-connection.js";
import { replicaAcksFor, type Batch, type ReplicaAcks } from "./redis-replicas.js";

export { DEFAULT_REDIS_URL, RedisTimeoutError } from "./redis-connection.js";
export { RedisNotReplicatedError } from "./redis-replicas.js";

/** What the store needs of a task; the runtime's StoredTask has these and more. */
export interface TaskLike {
  taskId: string;
  /** Epoch milliseconds after which the task is expired. */
  expiresAt: number;
  /** completed, failed and cancelled end a task: it no longer counts against `maxTasks`. */
  status?: string;
}

export interface RedisTaskStoreOptions extends ProbeOptions {
  /** Broker URL; `redis+cluster://host:port[,host:port...]` for a Redis Cluster, `redis+sentinel://host:port[,host:port...]/<master name>` for a master its sentinels name. Default: `$REDIS_URL`, else redis://127.0.0.1:6379. */
  url?: string;
  /** Prepended to every key and the change channel, so apps can share a broker. Default "mcp:tasks:". */
  prefix?: string;
  /** Unfinished tasks the broker may hold for this prefix. Default 10000. */
  maxTasks?: number;
  /** How long after expiry a task is kept to be reported as expired. Default 60000 ms. */
  expiredGraceMs?: number;
  /** How long a running task's lease lasts unless its process renews it (every third of it). Default 10000 ms. */
  leaseMs?: number;
  /** How often this process looks for tasks whose lease lapsed, to mark them failed. Default 5000 ms. */
  sweepMs?: number;
  /** How long one command may wait for Redis before it fails (the request needing it gets an error). Default 3000 ms. */
  commandTimeoutMs?: number;
}

/** The broker holds its limit of live tasks; the runtime answers -32603 naming it. */
export class TaskStoreFullError extends Error {
  constructor(readonly limit: number) {
    super(`the task store holds its limit of ${limit} unfinished tasks`);
    this.name = "TaskStoreFullError";
  }
}

/** Counts the task (ARGV[3], by its expiry ARGV[2]) in the live set unless it is at the limit ARGV[4] (expired members dropped first). */
const ADMIT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
return 1`;

/** Replaces the key only if it still holds what the writer read. */
const COMPARE_AND_SET = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;

const ENDED = new Set(["completed", "failed", "cancelled"]);

/** How often one update retries against other writers before giving up. */
const MAX_UPDATE_ATTEMPTS = 32;

/** JSON-RPC's internal error, the code a task failed by its process's end carries. */
const INTERNAL_ERROR = -32603;

/** A task whose process stopped before it ended: failed, its pending input requests dropped. */
function failedBecause(message: string) {
  return <T extends TaskLike>(task: T): T | undefined => {
    if (ENDED.has(task.status ?? "")) return undefined;
    const { inputRequests: _dropped, ...rest } = task as T & { inputRequests?: unknown };
    const failed = { ...rest, status: "failed", statusMessage: message, error: { code: INTERNAL_ERROR, message }, lastUpdatedAt: new Date().toISOString() };
    return failed as unknown as T;
  };
}

const LAPSED_MESSAGE = "The server process running this task stopped before it finished";

/** A timer's pass that does not start while its previous run is unfinished, so slow passes never pile up. */
function skipWhileRunning(pass: () => Promise<void>): () => void {
  let running = false;
  return () => {
    if (running) return;
    running = true;
    void pass().finally(() => (running = false));
  };
}

/**
 * The store at once, connecting in the background (retrying with backoff for as long as Redis is
 * away; `ready` is false and every call fails fast meanwhile), so a server starting before
 * Redis serves and reports itself not ready instead of exiting.
 */
export function openRedisTaskStore<T extends TaskLike>(options: RedisTaskStoreOptions = {}): RedisTaskStore<T> {
  const store = new RedisTaskStore<T>(options);
  store.start().catch(() => {}); // connect() only gives up on close()
  return store;
}

export async function connectRedisTaskStore<T extends TaskLike>(options: RedisTaskStoreOptions = {}): Promise<RedisTaskStore<T>> {
  const store = new RedisTaskStore<T>(options);
  await store.start();
  return store;
}

export class RedisTaskStore<T extends TaskLike = TaskLike> {
  readonly url: string;
  readonly #prefix: string;
  readonly #maxTasks: number;
  readonly #graceMs: number;
  readonly #client: RedisClient;
  readonly #publish: Publish;
  readonly #subscriber: RedisClient;
  readonly #listeners = new Set<(task: T) => void>();
  /** Told each time the change channel is heard again after a gap. */
  readonly #onResumed = new Set<() => void>();
  readonly #leaseMs: number;
  readonly #commandTimeoutMs: number;
  /** Whether Redis answers: false while it is connected but silent. */
  readonly #probe: AnswerProbe;
  /** Behind sentinels, how a write waits for the replicas that could take over. */
  readonly #acks: ReplicaAcks | undefined;
  /** Tasks this process created and runs, whose leases it renews until they end. */
  readonly #held = new Set<string>();
  readonly #timers: NodeJS.Timeout[] = [];

  constructor(options: RedisTaskStoreOptions = {}) {
    this.url = options.url ?? process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
    this.#prefix = options.prefix ?? "mcp:tasks:";
    this.#maxTasks = options.maxTasks ?? 10_000;
    this.#graceMs = options.expiredGraceMs ?? 60_000;
    this.#leaseMs = options.leaseMs ?? 10_000;
    const sweepMs = options.sweepMs ?? 5000;
    // Timers never keep the process alive; each pass skips while Redis is away, or while the last one still runs.
    const renew = skipWhileRunning(() => this.#renew());
    const sweep = skipWhileRunning(() => this.#sweep());
    this.#timers.push(setInterval(renew, Math.max(1, Math.floor(this.#leaseMs / 3))).unref(), setInterval(sweep, sweepMs).unref());
    // While Redis is away: commands fail fast, and both connections retry with capped backoff.
    const socket = { reconnectStrategy: (retries: number) => Math.min(5000, 100 * 2 ** Math.min(retries, 16)) + Math.floor(Math.random() * 100) };
    // A broker that does not answer holds no command longer than this.
    this.#commandTimeoutMs = options.commandTimeoutMs ?? 3000;
    this.#client = clientFor(this.url, { socket, disableOfflineQueue: true });
    this.#publish = publisherOn(this.#client, this.url);
    this.#probe = new AnswerProbe(this.#client, options);
    this.#acks = replicaAcksFor(this.url, this.#client, Math.floor(this.#commandTimeoutMs / 2));
    this.#subscriber = clientFor(this.url, { socket });
    // Failures surface on the commands themselves; without a listener node-redis would throw.
    this.#client.on("error", () => {});
    // The change channel is subscribed again before the subscriber is ready; what was written meanwhile was not heard.
    let down = false;
    this.#subscriber.on("error", () => void (down = true));
    this.#subscriber.on("ready", () => {
      if (!down) return;
      down = false;
      for (const resumed of [...this.#onResumed]) resumed();
    });
  }

  /** Connects both clients and listens for changes before any task is served. */
  async start(): Promise<void> {
    await Promise.all([this.#client.connect(), this.#subscriber.connect()]);
    await this.#subscriber.subscribe(`${this.#prefix}changes`, (message) => this.#announce(message));
  }

  /** Whether both connections are up (false before the first connection and during an outage) and Redis answers. */
  get ready(): boolean {
    return this.#client.isReady && this.#subscriber.isReady && this.#probe.answering;
  }

  async create(task: T): Promise<void> {
    const json = JSON.stringify(task);
    const key = this.#key(task.taskId);
    // The lease first: another process's sweep fails every counted task without one, and would
    // take a task between its counting and its writing for an orphan.
    await this.#bounded(this.#client.set(this.#lease(task.taskId), "1", { PX: this.#leaseMs }));
    const admitted = await this.#bounded(
      this.#client.eval(ADMIT, { keys: [this.#live], arguments: [String(Date.now()), String(task.expiresAt), key, String(this.#maxTasks)] }),
    ).catch((error: unknown) => this.#forget(task.taskId, error));
    if (admitted !== 1) this.#forget(task.taskId, new TaskStoreFullError(this.#maxTasks));
    try {
      // A WAIT counts all its connection wrote: the replicas holding this hold the lease and count sent before it too.
      const keepMs = this.#keepMs(task);
      await this.#written(
        () => this.#client.set(key, json, { PX: keepMs }),
        (multi) => multi.set(key, json, { PX: keepMs }),
      );
    } catch (error) {
      this.#client.zRem(this.#live, key).catch(() => undefined); // else it counts until the task's expiry
      this.#forget(task.taskId, error);
    }
    this.#held.add(task.taskId);
    await this.#bounded(this.#publish(`${this.#prefix}changes`, json, key));
  }

  /** A create that failed: its lease goes (else it simply expires), and the error is thrown. */
  #forget(taskId: string, error: unknown): never {
    this.#client.del(this.#lease(taskId)).catch(() => undefined);
    throw error;
  }

  async get(taskId: string): Promise<T | undefined> {
    const json = await this.#bounded(this.#client.get(this.#key(taskId)));
    return json === null ? undefined : (JSON.parse(json) as T);
  }

  async update(taskId: string, change: (task: T) => T | undefined): Promise<T | undefined> {
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const before = await this.#bounded(this.#client.get(this.#key(taskId)));
      if (before === null) return undefined;
      const next = change(JSON.parse(before) as T);
      if (next === undefined) return JSON.parse(before) as T;
      const json = JSON.stringify(next);
      const swap = { keys: [this.#key(taskId)], arguments: [before, json, String(this.#keepMs(next))] };
      const swapped = await this.#written(
        () => this.#client.eval(COMPARE_AND_SET, swap),
        (multi) => multi.eval(COMPARE_AND_SET, swap),
      );
      if (swapped === 1) {
        if (ENDED.has(next.status ?? "")) {
          // An ended task leaves the count (on a cluster the live set is on another node than the task).
          await this.#bounded(this.#client.zRem(this.#live, this.#key(taskId))).catch(() => undefined); // else it counts until its expiry
          this.#release(taskId);
        }
        await this.#bounded(this.#publish(`${this.#prefix}changes`, json, this.#key(taskId)));
        return next;
      }
    }
    throw new Error(`task ${taskId} changed ${MAX_UPDATE_ATTEMPTS} times while being updated; try again`);
  }

  watch(listener: (task: T) => void, onResumed?: () => void): () => void {
    this.#listeners.add(listener);
    if (onResumed !== undefined) this.#onResumed.add(onResumed);
    return () => {
      this.#listeners.delete(listener);
      if (onResumed !== undefined) this.#onResumed.delete(onResumed);
    };
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer);
    this.#probe.stop();
    this.#listeners.clear();
    this.#onResumed.clear();
    await Promise.all([this.#subscriber, this.#client].map((client) => (client.isOpen ? client.close() : undefined)));
  }

  /** A write the runtime acknowledges: `direct`, or behind sentinels `batched` as `ReplicaAcks` says. */
  #written<W>(direct: () => Promise<W>, batched: (multi: Batch) => Batch): Promise<W> {
    return this.#bounded(this.#acks === undefined ? direct() : (this.#acks.write(batched) as Promise<W>));
  }

  /** Every command the runtime waits for is bounded by `commandTimeoutMs`. */
  #bounded<T>(command: Promise<T>): Promise<T> {
    // Failed for want of a connection: marked so, for the client to be told to retry.
    return within(this.#commandTimeoutMs, this.#probe.track(command)).catch((error: unknown) => {
      throw this.#client.isReady ? error : new RedisOutOfReachError(checkedUrl(this.url), error);
    });
  }

  /** The task's key; `{<id>}` is its hash tag, shared by its lease. */
  #key(taskId: string): string {
    return `${this.#prefix}task:{${taskId}}`;
  }

  #lease(taskId: string): string {
    return `${this.#key(taskId)}:lease`;
  }

  /** The task id in a live set member (a task key). */
  #taskIdOf(key: string): string {
    return key.slice(`${this.#prefix}task:{`.length, -1);
  }

  get #live(): string {
    return `${this.#prefix}live`;
  }

  /** How long Redis keeps the key: until expiry plus the grace period, at least 1 ms. */
  #keepMs(task: T): number {
    return Math.max(1, Math.ceil(task.expiresAt + this.#graceMs - Date.now()));
  }

  /** Extends the lease of every task this process runs (sent together, not as one transaction: on a cluster they are on different nodes). */
  async #renew(): Promise<void> {
    if (this.#held.size === 0 || !this.#client.isReady) return;
    // SET rather than PEXPIRE: a lease that lapsed during an outage is taken again at once.
    const renewals = [...this.#held].map((taskId) => this.#client.set(this.#lease(taskId), "1", { PX: this.#leaseMs }));
    await this.#bounded(Promise.all(renewals)).catch(() => undefined); // Redis away: the next pass tries again
  }

  /** Fails the unfinished tasks whose process stopped renewing their lease. */
  async #sweep(): Promise<void> {
    if (!this.#client.isReady) return;
    try {
      // The unfinished, unexpired tasks, then which of their leases lapsed (one EXISTS each: the leases are on many nodes).
      const live = await this.#bounded(this.#client.zRangeByScore(this.#live, Date.now(), "+inf"));
      const others = live.map((key) => this.#taskIdOf(key)).filter((taskId) => !this.#held.has(taskId));
      const leased = await this.#bounded(Promise.all(others.map((taskId) => this.#client.exists(this.#lease(taskId)))));
      const taskIds = others.filter((_, index) => leased[index] === 0);
      await Promise.all(taskIds.map((taskId) => this.update(taskId, failedBecause(LAPSED_MESSAGE))));
    } catch {
      // Redis went away mid-sweep: the next pass does it.
    }
  }

  /** The task ended: its lease is no longer renewed, and goes. */
  #release(taskId: string): void {
    if (!this.#held.delete(taskId)) return;
    this.#client.del(this.#lease(taskId)).catch(() => undefined); // else it simply expires
  }

  #announce(message: string): void {
    let task: T;
    try {
      task = JSON.parse(message) as T;
    } catch {
      return; // not ours: a foreign publisher on the channel
    }
    if (ENDED.has(task.status ?? "")) this.#release(task.taskId);
    for (const listener of this.#listeners) listener(task);
  }
}

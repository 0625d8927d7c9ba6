/**
 * The runtime's `TaskStore` in Redis, so that every server process sharing a broker serves the
 * same tasks: one created on process A is read, updated and cancelled through process B, and
 * the work running on A learns of B's cancel or answers. It has the runtime's `TaskStore`
 * shape (create, get, update, watch, close) without importing the runtime, like the event
 * source beside it: `createServer({ tasks: { store: await connectRedisTaskStore() } })`.
 *
 * - A task is one key (`<prefix>task:<id>`, JSON) that Redis expires after the task's TTL
 *   plus a grace period (so tasks/get can still say "expired"), and, until it ends, one member
 *   of a sorted set by expiry that bounds how many unfinished tasks the broker holds (a
 *   finished task leaves the set: it waits for its TTL in Redis's memory, which the broker's
 *   own `maxmemory` bounds).
 * - `create` resolves once Redis has the key: Redis answers a write only after applying it, so
 *   a `get` from any process then finds it (the extension's "durably created").
 * - `update` is compare-and-set in one script, retried when another writer came first.
 * - Every write is published on `<prefix>changes`; `watch` listeners hear them from every
 *   process (their own writes included, through the same path).
 */
import { createClient } from "redis";

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** What the store needs of a task; the runtime's StoredTask has these and more. */
export interface TaskLike {
  taskId: string;
  /** Epoch milliseconds after which the task is expired. */
  expiresAt: number;
  /** completed, failed and cancelled end a task: it no longer counts against `maxTasks`. */
  status?: string;
}

export interface RedisTaskStoreOptions {
  /** Broker URL. Default: `$REDIS_URL`, else redis://127.0.0.1:6379. */
  url?: string;
  /** Prepended to every key and the change channel, so apps can share a broker. Default "mcp:tasks:". */
  prefix?: string;
  /** Unfinished tasks the broker may hold for this prefix. Default 10000. */
  maxTasks?: number;
  /** How long after expiry a task is kept to be reported as expired. Default 60000 ms. */
  expiredGraceMs?: number;
}

/** The broker holds its limit of live tasks; the runtime answers -32603 naming it. */
export class TaskStoreFullError extends Error {
  constructor(readonly limit: number) {
    super(`the task store holds its limit of ${limit} unfinished tasks`);
    this.name = "TaskStoreFullError";
  }
}

type RedisClient = ReturnType<typeof createClient>;

/** Creates the key unless the live count is at the limit (expired members dropped first). */
const CREATE = `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[5], KEYS[1])
return 1`;

/** Replaces the key only if it still holds what the writer read; an ended task leaves the count. */
const COMPARE_AND_SET = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if ARGV[4] == '1' then redis.call('ZREM', KEYS[2], KEYS[1]) end
return 1`;

const ENDED = new Set(["completed", "failed", "cancelled"]);

/** How often one update retries against other writers before giving up. */
const MAX_UPDATE_ATTEMPTS = 32;

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
  readonly #subscriber: RedisClient;
  readonly #listeners = new Set<(task: T) => void>();

  constructor(options: RedisTaskStoreOptions = {}) {
    this.url = options.url ?? process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
    this.#prefix = options.prefix ?? "mcp:tasks:";
    this.#maxTasks = options.maxTasks ?? 10_000;
    this.#graceMs = options.expiredGraceMs ?? 60_000;
    // While Redis is away: commands fail fast, and both connections retry with capped backoff.
    const socket = { reconnectStrategy: (retries: number) => Math.min(5000, 100 * 2 ** Math.min(retries, 16)) + Math.floor(Math.random() * 100) };
    this.#client = createClient({ url: this.url, socket, disableOfflineQueue: true });
    this.#subscriber = createClient({ url: this.url, socket });
    // Failures surface on the commands themselves; without a listener node-redis would throw.
    this.#client.on("error", () => {});
    this.#subscriber.on("error", () => {});
  }

  /** Connects both clients and listens for changes before any task is served. */
  async start(): Promise<void> {
    await Promise.all([this.#client.connect(), this.#subscriber.connect()]);
    await this.#subscriber.subscribe(`${this.#prefix}changes`, (message) => this.#announce(message));
  }

  /** Whether both connections are up (false before the first connection and during an outage). */
  get ready(): boolean {
    return this.#client.isReady && this.#subscriber.isReady;
  }

  async create(task: T): Promise<void> {
    const json = JSON.stringify(task);
    const created = await this.#client.eval(CREATE, {
      keys: [this.#key(task.taskId), `${this.#prefix}live`],
      arguments: [json, String(this.#keepMs(task)), String(Date.now()), String(this.#maxTasks), String(task.expiresAt)],
    });
    if (created !== 1) throw new TaskStoreFullError(this.#maxTasks);
    await this.#client.publish(`${this.#prefix}changes`, json);
  }

  async get(taskId: string): Promise<T | undefined> {
    const json = await this.#client.get(this.#key(taskId));
    return json === null ? undefined : (JSON.parse(json) as T);
  }

  async update(taskId: string, change: (task: T) => T | undefined): Promise<T | undefined> {
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const before = await this.#client.get(this.#key(taskId));
      if (before === null) return undefined;
      const next = change(JSON.parse(before) as T);
      if (next === undefined) return JSON.parse(before) as T;
      const json = JSON.stringify(next);
      const swapped = await this.#client.eval(COMPARE_AND_SET, {
        keys: [this.#key(taskId), `${this.#prefix}live`],
        arguments: [before, json, String(this.#keepMs(next)), ENDED.has(next.status ?? "") ? "1" : "0"],
      });
      if (swapped === 1) {
        await this.#client.publish(`${this.#prefix}changes`, json);
        return next;
      }
    }
    throw new Error(`task ${taskId} changed ${MAX_UPDATE_ATTEMPTS} times while being updated; try again`);
  }

  watch(listener: (task: T) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    await Promise.all([this.#subscriber, this.#client].map((client) => (client.isOpen ? client.close() : undefined)));
  }

  #key(taskId: string): string {
    return `${this.#prefix}task:${taskId}`;
  }

  /** How long Redis keeps the key: until expiry plus the grace period, at least 1 ms. */
  #keepMs(task: T): number {
    return Math.max(1, Math.ceil(task.expiresAt + this.#graceMs - Date.now()));
  }

  #announce(message: string): void {
    let task: T;
    try {
      task = JSON.parse(message) as T;
    } catch {
      return; // not ours: a foreign publisher on the channel
    }
    for (const listener of this.#listeners) listener(task);
  }
}

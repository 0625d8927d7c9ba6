/**
 * Where tasks live: a small interface, so that several processes can share them (the Redis
 * store beside the Redis event source), and an in-memory default with no dependency beyond
 * Node. A store keeps JSON records; the task service (service.ts) owns their meaning.
 */
import type { InputRequests, JSONObject } from "../protocol.js";
import type { JsonObject } from "../jsonrpc.js";

export type TaskStatusName = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** One task as stored: what tasks/get reports, plus the bookkeeping the service needs. */
export interface StoredTask {
  taskId: string;
  status: TaskStatusName;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs?: number;
  /** Outstanding input requests, keyed as asked (never reused within the task). */
  inputRequests?: InputRequests;
  /** Answers delivered by tasks/update and not yet taken by the running work. */
  inputResponses?: JsonObject;
  /** Every key ever asked, so an answer to an old key is ignored. */
  askedKeys?: string[];
  /** The final result, shaped as the request's own (a CallToolResult for tools/call). */
  result?: JSONObject;
  /** The JSON-RPC error a failed task ended with. */
  error?: { code: number; message: string; data?: JsonObject };
  /** Epoch milliseconds after which the task is gone (createdAt + ttlMs). */
  expiresAt: number;
  /** Who created it (the transport's principal), so that nobody else can read it; absent when anonymous. */
  owner?: string;
}

export interface TaskStore {
  /** Stores a new task; resolves only once a `get` anywhere would find it. */
  create(task: StoredTask): Promise<void>;
  /** The task, or undefined when unknown (an expired one may be either). */
  get(taskId: string): Promise<StoredTask | undefined>;
  /**
   * Applies `change` to the stored task and stores its answer, as one step against other
   * writers; `change` returning undefined leaves the task as it is. Resolves with the task
   * as stored afterwards (undefined when unknown).
   */
  update(taskId: string, change: (task: StoredTask) => StoredTask | undefined): Promise<StoredTask | undefined>;
  /**
   * Calls `listener` with every task written, by any process sharing the store. Every
   * listener of one write gets the same object, made once per write: read it, never change it.
   * `onResumed`: called each time the store delivers again after a gap (a broker's connection
   * dropped and came back), in which writes were missed: the watcher reads again what it follows.
   */
  watch(listener: (task: StoredTask) => void, onResumed?: () => void): () => void;
  /** False while a broker the store needs is out of reach; absent where there is none (memory). */
  readonly ready?: boolean;
  close?(): Promise<void>;
}

export interface TaskLimits {
  /**
   * Unfinished tasks (working or input_required) at once, server-wide; a task beyond it is
   * refused (-32603). Finished tasks do not count: they are bounded by bytes. Default 10000.
   */
  maxTasks?: number;
  /**
   * Unfinished tasks one client may have running in this process (a client as `clientKey` in
   * subscriptions/slots.ts defines it); a task beyond it is refused (-32603) while other
   * clients are still served. Default 1000.
   */
  maxTasksPerClient?: number;
  /** Bytes of one stored task as JSON (its result, error and input requests included). Default 1 MiB. */
  maxTaskBytes?: number;
  /**
   * Bytes (JSON characters) of every task the memory store holds, results included,
   * server-wide. Past it the oldest finished tasks are evicted (tasks/get then says "not
   * found"); a write that still does not fit is refused: a create or tasks/update with
   * -32603, a result by failing its task. Default 64 MiB. (Redis: the broker's maxmemory.)
   */
  maxStoredBytes?: number;
  /** The longest TTL a task may have. Default 1 hour. */
  maxTtlMs?: number;
  /** The TTL a task gets unless its tool asks for another. Default 10 minutes. */
  defaultTtlMs?: number;
}

export const DEFAULT_TASK_LIMITS: Required<TaskLimits> = {
  maxTasks: 10_000,
  maxTasksPerClient: 1000,
  maxTaskBytes: 1 << 20,
  maxStoredBytes: 64 << 20,
  maxTtlMs: 60 * 60_000,
  defaultTtlMs: 10 * 60_000,
};

/** Raised by a store that cannot take another task; the service answers -32603 naming the limit. */
export class TaskStoreFullError extends Error {
  constructor(
    readonly limit: number,
    what = "unfinished tasks",
  ) {
    super(`the task store holds its limit of ${limit} ${what}`);
    this.name = "TaskStoreFullError";
  }
}

/**
 * The default store: one process's memory. A task is kept as its JSON text, so a write is
 * copied once (the text) however many listeners watch the store, and a read parses its own
 * copy. Expired tasks are dropped when read and before a create; finished ones are evicted,
 * oldest first, when the stored text would pass `maxStoredBytes`.
 */
export class MemoryTaskStore implements TaskStore {
  /** Each task's JSON text, with what the bounds read of it kept beside it (never re-parsed). */
  readonly #tasks = new Map<string, Entry>();
  readonly #listeners = new Set<(task: StoredTask) => void>();
  /** Tasks not yet ended: what `maxTasks` bounds. */
  #unfinished = 0;
  /** Characters of every stored text: what `maxStoredBytes` bounds. */
  #bytes = 0;
  /** Finished tasks in the order they finished: the eviction order. */
  readonly #finished = new Set<string>();

  constructor(
    private readonly maxTasks = DEFAULT_TASK_LIMITS.maxTasks,
    private readonly now: () => number = Date.now,
    private readonly maxStoredBytes = DEFAULT_TASK_LIMITS.maxStoredBytes,
  ) {}

  get size(): number {
    return this.#tasks.size;
  }

  /** Tasks not yet ended (for tests and metrics). */
  get unfinished(): number {
    return this.#unfinished;
  }

  /** Characters of JSON the store holds (for tests and metrics). */
  get storedBytes(): number {
    return this.#bytes;
  }

  async create(task: StoredTask): Promise<void> {
    if (this.#unfinished >= this.maxTasks) this.#purgeExpired();
    if (this.#unfinished >= this.maxTasks) throw new TaskStoreFullError(this.maxTasks);
    this.#write(task);
  }

  async get(taskId: string): Promise<StoredTask | undefined> {
    const entry = this.#tasks.get(taskId);
    if (entry === undefined) return undefined;
    if (entry.expiresAt + EXPIRED_GRACE_MS < this.now()) this.#delete(taskId, entry);
    return JSON.parse(entry.json) as StoredTask;
  }

  async update(taskId: string, change: (task: StoredTask) => StoredTask | undefined): Promise<StoredTask | undefined> {
    const current = await this.get(taskId);
    if (current === undefined) return undefined;
    const next = change(current);
    if (next === undefined) return current;
    this.#write(next);
    // `next` is the caller's own object (change made it from the caller's copy), so it is returned as is.
    return next;
  }

  watch(listener: (task: StoredTask) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Stores the task's text and hands one parsed copy of it to every listener. */
  #write(task: StoredTask): void {
    const json = JSON.stringify(task);
    this.#makeRoom(task.taskId, json.length);
    const before = this.#tasks.get(task.taskId);
    if (before !== undefined) this.#delete(task.taskId, before);
    const ended = isEnded(task);
    this.#tasks.set(task.taskId, { json, expiresAt: task.expiresAt, ended });
    this.#bytes += json.length;
    if (ended) this.#finished.add(task.taskId);
    else this.#unfinished++;
    if (this.#listeners.size === 0) return;
    const written = JSON.parse(json) as StoredTask;
    for (const listener of this.#listeners) listener(written);
  }

  #purgeExpired(): void {
    const now = this.now();
    for (const [id, entry] of this.#tasks) if (entry.expiresAt < now) this.#delete(id, entry);
  }

  /**
   * Evicts finished tasks, oldest first, until `bytes` replacing `taskId`'s text fits the
   * budget; refuses (nothing changed beyond the evictions) when only unfinished ones are left.
   */
  #makeRoom(taskId: string, bytes: number): void {
    const replaced = this.#tasks.get(taskId)?.json.length ?? 0;
    for (const id of this.#finished) {
      if (this.#bytes - replaced + bytes <= this.maxStoredBytes) return;
      if (id !== taskId) this.#delete(id, this.#tasks.get(id)!);
    }
    if (this.#bytes - replaced + bytes > this.maxStoredBytes) throw new TaskStoreFullError(this.maxStoredBytes, "bytes of stored tasks");
  }

  #delete(taskId: string, entry: Entry): void {
    this.#tasks.delete(taskId);
    this.#bytes -= entry.json.length;
    if (entry.ended) this.#finished.delete(taskId);
    else this.#unfinished--;
  }
}

interface Entry {
  readonly json: string;
  readonly expiresAt: number;
  readonly ended: boolean;
}

const isEnded = (task: StoredTask): boolean => task.status === "completed" || task.status === "failed" || task.status === "cancelled";

/**
 * How long an expired task is kept so that tasks/get can say "expired" rather than
 * "unknown"; both are -32602, the message differs. Beyond it the task is simply gone.
 */
export const EXPIRED_GRACE_MS = 60_000;

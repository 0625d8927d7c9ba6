/**
 * The tasks extension on the server side. A tool answers `runAsTask(work)`; for a client that
 * declared the extension on that request the task is stored (durably, before the answer
 * names it) and `work` runs in the background, otherwise it runs inline (or, when the tool
 * requires a task, the client gets -32021). tasks/get, tasks/update and tasks/cancel read and
 * change the stored task, from any process sharing the store; every write is announced with
 * notifications/tasks on the listen streams that asked for that task's id.
 */
import { randomUUID } from "node:crypto";
import { declaresExtension } from "../extensions.js";
import { INTERNAL_ERROR, INVALID_PARAMS, isObject, McpError, type JsonObject } from "../jsonrpc.js";
import type { RequestContext } from "../request-notifications.js";
import type { Channel, SubscriptionHandler } from "../subscriptions/types.js";
import { DEFAULT_TASK_LIMITS, MemoryTaskStore, TaskStoreFullError, type StoredTask, type TaskLimits, type TaskStore } from "./store.js";
import {
  createdTask,
  detailedTask,
  extensionRequired,
  TASK_KIND,
  TASK_NOTIFICATION,
  taskCapabilities,
  TASKS_EXTENSION as TASKS_ID,
  type TaskResultOf,
  type TaskVerb,
} from "./shapes.js";
import { TaskRun, type TaskContext, type TaskOutcome, type TaskWork } from "./run.js";
import { clientKey, type ClientKey } from "../subscriptions/slots.js";

export type { TaskContext, TaskOutcome, TaskWork };

/** The client of a request made outside any connection and with no principal. */
const ANONYMOUS = {};

export interface RunAsTaskOptions {
  /** The tool only runs as a task: a client without the extension gets -32021. Default false (it runs inline). */
  required?: boolean;
  /** How long the task is kept after creation; capped by `limits.maxTtlMs`. */
  ttlMs?: number;
  pollIntervalMs?: number;
}

/** A tool's answer that asks the runtime to run `work` as a task (see `runAsTask`). */
export class TaskStart {
  constructor(
    readonly work: TaskWork,
    readonly options: RunAsTaskOptions,
  ) {}
}

/** Answer a tool call with a task: `return runAsTask(async (task) => ({ content: [...] }))`. */
export function runAsTask(work: TaskWork, options: RunAsTaskOptions = {}): TaskStart {
  return new TaskStart(work, options);
}

export interface TasksOptions {
  /** Where tasks live; default one process's memory (share a RedisTaskStore across processes). */
  store?: TaskStore;
  limits?: TaskLimits;
}

export class TaskService {
  readonly #limits: Required<TaskLimits>;
  readonly #store: TaskStore;
  /** Listen streams by the task ids they asked for. */
  readonly #listeners = new Map<string, Set<Channel>>();
  #unwatch: (() => void) | undefined;
  /**
   * Work running in this process by task id; aborted when the server closes. The one store
   * watch hands each write to its task's run here, so a write costs one lookup however many
   * tasks run (a watch per run made every write, creates included, visit them all).
   */
  readonly #running = new Map<string, TaskRun>();
  /** Tasks running in this process per client, for `maxTasksPerClient`; a client is dropped at zero. */
  readonly #perClient = new Map<ClientKey, number>();
  /** Whether any tool answered with a task: then server/discover advertises the extension. */
  used = false;

  constructor(options: TasksOptions = {}) {
    this.#limits = { ...DEFAULT_TASK_LIMITS, ...options.limits };
    this.#store = options.store ?? new MemoryTaskStore(this.#limits.maxTasks, Date.now, this.#limits.maxStoredBytes);
  }

  get store(): TaskStore {
    return this.#store;
  }

  /** Answers a tool call that returned `runAsTask(...)`. */
  async begin(start: TaskStart, context: RequestContext): Promise<JsonObject> {
    this.used = true;
    if (!declaresExtension(context.meta, TASKS_ID)) {
      if (start.options.required) throw extensionRequired("This tool");
      return runInline(start.work, context);
    }
    const client = context.client ?? clientKey(context.meta["principal"], undefined, ANONYMOUS);
    const held = this.#perClient.get(client) ?? 0;
    if (held >= this.#limits.maxTasksPerClient) {
      throw new McpError(
        INTERNAL_ERROR,
        `Cannot create a task: this client already has ${this.#limits.maxTasksPerClient} unfinished tasks, its share of the server; wait for one to finish`,
      );
    }
    // Taken before the create is awaited, so concurrent calls cannot all pass the check.
    this.#perClient.set(client, held + 1);
    const release = () => {
      const left = this.#perClient.get(client)! - 1;
      if (left === 0) this.#perClient.delete(client);
      else this.#perClient.set(client, left);
    };
    const now = Date.now();
    const ttlMs = Math.min(Math.max(1, Math.trunc(start.options.ttlMs ?? this.#limits.defaultTtlMs)), this.#limits.maxTtlMs);
    const task: StoredTask = {
      taskId: randomUUID(),
      status: "working",
      createdAt: new Date(now).toISOString(),
      lastUpdatedAt: new Date(now).toISOString(),
      ttlMs,
      expiresAt: now + ttlMs,
      ...(start.options.pollIntervalMs === undefined ? {} : { pollIntervalMs: Math.max(1, Math.trunc(start.options.pollIntervalMs)) }),
      ...ownerOf(context),
    };
    try {
      await this.#store.create(task);
    } catch (error) {
      release();
      throw storeFull(error, "Cannot create a task");
    }
    this.#watch();
    const run = new TaskRun(this.#store, task.taskId, this.#limits.maxTaskBytes);
    this.#running.set(task.taskId, run);
    void run.execute(start.work).finally(() => {
      this.#running.delete(task.taskId);
      release();
    });
    return createdTask(task);
  }

  /** The handler of one verb's request. */
  handler(verb: TaskVerb): (params: JsonObject, context: RequestContext) => Promise<TaskResultOf<TaskVerb>> {
    return async (params, context) => {
      if (!declaresExtension(context.meta, TASKS_ID)) throw extensionRequired(`tasks ${verb}`);
      const task = await this.#find(params, context);
      if (verb === "get") return detailedTask(task);
      if (verb === "cancel") {
        await this.#store.update(task.taskId, cancelled);
        const ack: TaskResultOf<"cancel"> = { resultType: "complete" };
        return ack;
      }
      const responses = readResponses(params["inputResponses"]);
      if (JSON.stringify(responses).length > this.#limits.maxTaskBytes) {
        throw new McpError(INVALID_PARAMS, `Invalid params: inputResponses exceed the server's limit of ${this.#limits.maxTaskBytes} bytes per task`);
      }
      await this.#store.update(task.taskId, answered(responses)).catch((error: unknown) => {
        throw storeFull(error, "Cannot store the answers");
      });
      const ack: TaskResultOf<"update"> = { resultType: "complete" };
      return ack;
    };
  }

  /** The listen-stream side: taskIds honored for a client that declared the extension. */
  subscriptionHandler(): SubscriptionHandler<string[]> {
    return {
      subscriptionCapabilities: () => taskCapabilities(),
      subscribe: (filter, channel) => {
        const ids = TASK_KIND === undefined ? undefined : (filter as Record<string, unknown>)[TASK_KIND.filterKey];
        if (!Array.isArray(ids) || ids.length === 0) return { stream: [], honored: {} };
        if (!declaresExtension(channel.meta, TASKS_ID)) return { stop: extensionRequired("A taskIds subscription") };
        for (const id of ids as string[]) {
          const channels = this.#listeners.get(id) ?? new Set();
          this.#listeners.set(id, channels.add(channel));
        }
        this.#watch();
        return { stream: ids as string[] };
      },
      handleMessage: (message, channel, ids) => {
        const task = message as StoredTask;
        // Like tasks/get: another principal's task is never told about, even when its id is known.
        if (TASK_NOTIFICATION !== undefined && task.owner === ownerOf(channel).owner) {
          channel.sendNotification({ method: TASK_NOTIFICATION, params: stripResultType(detailedTask(task)) });
        }
        return { stream: ids };
      },
      handleClose: (channel, ids) => {
        for (const id of ids) {
          const channels = this.#listeners.get(id);
          channels?.delete(channel);
          if (channels?.size === 0) this.#listeners.delete(id);
        }
      },
    };
  }

  /**
   * The server is closing: every task still running here is marked failed first (its work will
   * not finish, and a client polling through another process sharing the store learns it at
   * once), then its work is aborted and the store closed.
   */
  async close(): Promise<void> {
    const running = [...this.#running.values()];
    await Promise.all(running.map((run) => this.#store.update(run.taskId, shutDown).catch(() => undefined)));
    for (const run of running) run.abort();
    this.#unwatch?.();
    await this.#store.close?.();
  }

  /** Every stored write reaches its task's run in this process and the streams that asked for it; after a gap, what they follow is read again. */
  #watch(): void {
    this.#unwatch ??= this.#store.watch(
      (task) => this.#observed(task),
      () => void this.#reread(),
    );
  }

  #observed(task: StoredTask): void {
    this.#running.get(task.taskId)?.observe(task);
    for (const channel of this.#listeners.get(task.taskId) ?? []) channel.post(task);
  }

  /** The store missed writes (its connection dropped): each task followed here is read again, as if just written. */
  async #reread(): Promise<void> {
    for (const taskId of new Set([...this.#running.keys(), ...this.#listeners.keys()])) {
      const task = await this.#store.get(taskId).catch(() => undefined); // away again: the next resumption reads it
      if (task !== undefined) this.#observed(task);
    }
  }

  async #find(params: JsonObject, context: RequestContext): Promise<StoredTask> {
    if (typeof params["taskId"] !== "string") throw new McpError(INVALID_PARAMS, "Invalid params: taskId must be a string");
    const task = await this.#store.get(params["taskId"]);
    const owner = ownerOf(context).owner;
    if (task === undefined || task.owner !== owner) throw new McpError(INVALID_PARAMS, "Failed to retrieve task: Task not found");
    if (task.expiresAt < Date.now()) throw new McpError(INVALID_PARAMS, "Failed to retrieve task: Task has expired");
    return task;
  }
}

/** A store's refusal as the -32603 naming its limit; any other error as it is. */
function storeFull(error: unknown, doing: string): unknown {
  // By name too: a store outside the runtime (the Redis one) raises its own class of it.
  if (error instanceof TaskStoreFullError || (error as Error)?.name === "TaskStoreFullError") {
    return new McpError(INTERNAL_ERROR, `${doing}: ${(error as Error).message}`);
  }
  return error;
}

const TERMINAL = new Set(["completed", "failed", "cancelled"]);
export const isTerminal = (task: StoredTask): boolean => TERMINAL.has(task.status);

function cancelled(task: StoredTask): StoredTask | undefined {
  if (isTerminal(task)) return undefined;
  const { inputRequests: _dropped, ...rest } = task;
  return { ...rest, status: "cancelled", statusMessage: "Cancelled at the client's request", lastUpdatedAt: new Date().toISOString() };
}

const SHUT_DOWN_MESSAGE = "The server running this task shut down before it finished";

/** A task whose server closed while it ran: failed, its pending input requests dropped. */
function shutDown(task: StoredTask): StoredTask | undefined {
  if (isTerminal(task)) return undefined;
  const { inputRequests: _dropped, ...rest } = task;
  const error = { code: INTERNAL_ERROR, message: SHUT_DOWN_MESSAGE };
  return { ...rest, status: "failed", statusMessage: SHUT_DOWN_MESSAGE, error, lastUpdatedAt: new Date().toISOString() };
}

/** Takes the answers to outstanding requests; keys not outstanding are ignored (the spec's SHOULD). */
function answered(responses: JsonObject): (task: StoredTask) => StoredTask | undefined {
  return (task) => {
    const outstanding = task.inputRequests ?? {};
    const taken = Object.keys(responses).filter((key) => key in outstanding);
    if (isTerminal(task) || taken.length === 0) return undefined;
    const remaining = Object.fromEntries(Object.entries(outstanding).filter(([key]) => !taken.includes(key)));
    const inputResponses = { ...task.inputResponses, ...Object.fromEntries(taken.map((key) => [key, responses[key]])) };
    const waiting = Object.keys(remaining).length > 0;
    const { inputRequests: _replaced, ...rest } = task;
    return {
      ...rest,
      ...(waiting ? { inputRequests: remaining } : {}),
      inputResponses,
      status: waiting ? "input_required" : "working",
      lastUpdatedAt: new Date().toISOString(),
    };
  };
}

function readResponses(value: unknown): JsonObject {
  if (!isObject(value) || Array.isArray(value))
    throw new McpError(INVALID_PARAMS, "Invalid params: inputResponses must be an object keyed by input request keys");
  return value;
}

/** A notification carries the task as tasks/get gives it, without the result's `resultType`. */
function stripResultType(task: object): JsonObject {
  const { resultType: _dropped, ...rest } = task as JsonObject;
  return rest;
}

/** A caller the transport vouched for owns its tasks; anonymous tasks belong to every anonymous caller. */
function ownerOf(context: { readonly meta: Readonly<Record<string, unknown>> }): { owner?: string } {
  const principal = context.meta["principal"];
  return principal === undefined ? {} : { owner: JSON.stringify(principal) };
}

/** Work run inside the request; like a tool, a throw other than McpError is a tool error (isError). */
async function runInline(work: TaskWork, context: RequestContext): Promise<JsonObject> {
  try {
    return (await work(inlineContext(context))) as unknown as JsonObject;
  } catch (error) {
    if (error instanceof McpError) throw error;
    return { content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }], isError: true };
  }
}

/** The request's signal; input cannot be asked for without a task. */
function inlineContext(context: RequestContext): TaskContext {
  return {
    taskId: undefined,
    signal: context.signal,
    setStatusMessage: async () => {},
    ask: async () => {
      throw extensionRequired("Asking for input during a task");
    },
  };
}

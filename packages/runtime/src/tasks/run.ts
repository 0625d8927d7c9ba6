/**
 * One task's work, running in the process that created it. It learns of cancellation and of
 * answers to its input requests from the store's writes to its task (so a tasks/cancel or
 * tasks/update served by another process reaches it), which the service hands it through
 * `observe`, and records its outcome unless the task has already ended (a cancelled task
 * stays cancelled).
 */
import type { CallToolResult, InputRequests, InputResponse, JSONObject } from "../protocol.js";
import { INTERNAL_ERROR, McpError, type JsonObject } from "../jsonrpc.js";
import type { StoredTask, TaskStore } from "./store.js";
import type { Awaitable } from "../subscriptions/types.js";

/** A tool result as work returns it (`resultType` may be left out). */
export type TaskOutcome = Omit<CallToolResult, "resultType"> & { resultType?: "complete" };

/** What running work sees of its task. */
export interface TaskContext {
  /** The task's id; undefined when the work runs inline (the client did not declare the extension). */
  readonly taskId: string | undefined;
  /** Aborted when the task is cancelled, from this process or another. */
  readonly signal: AbortSignal;
  /** Sets the task's status message (shown on tasks/get). */
  setStatusMessage(message: string): Promise<void>;
  /** Parks the task in input_required with these requests until tasks/update answers them all. */
  ask(requests: InputRequests): Promise<Record<string, InputResponse>>;
}

export type TaskWork = (task: TaskContext) => Awaitable<TaskOutcome>;

interface Waiting {
  keys: string[];
  resolve(answers: Record<string, InputResponse>): void;
  reject(error: Error): void;
}

export class TaskRun {
  readonly #controller = new AbortController();
  #waiting: Waiting | undefined;
  readonly #asked = new Set<string>();

  constructor(
    private readonly store: TaskStore,
    readonly taskId: string,
    private readonly maxTaskBytes: number,
  ) {}

  /** Stops the work (the server is closing): its signal aborts and a pending ask rejects. */
  abort(): void {
    this.#controller.abort(new Error("the server is closing"));
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.reject(new Error("the server is closing"));
  }

  async execute(work: TaskWork): Promise<void> {
    try {
      const outcome = await this.#outcome(work);
      await this.store
        .update(this.taskId, (task) => (ended(task) ? undefined : this.#finish(task, outcome)))
        .catch(async (error: unknown) => {
          if ((error as Error)?.name !== "TaskStoreFullError") throw error;
          // No room for the result: the task fails with the store's reason, which is small.
          const full: Outcome = { error: { code: INTERNAL_ERROR, message: `The task's result was not stored: ${(error as Error).message}` } };
          await this.store.update(this.taskId, (task) => (ended(task) ? undefined : this.#finish(task, full)));
        });
    } catch {
      // The store failed: the task stays as it was and expires with its TTL.
    } finally {
      this.#waiting?.reject(new Error("the task ended"));
    }
  }

  async #outcome(work: TaskWork): Promise<Outcome> {
    try {
      const result: TaskOutcome = await work(this.#context());
      return { result: asJson({ ...result, resultType: "complete" }) };
    } catch (error) {
      if (error instanceof McpError)
        return { error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data as JsonObject }) } };
      // A tool that throws reports a tool error, as tools/call does: completed with isError.
      return {
        result: asJson({ content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }], isError: true, resultType: "complete" }),
      };
    }
  }

  #finish(task: StoredTask, outcome: Outcome): StoredTask {
    const { inputRequests: _done, inputResponses: _taken, ...rest } = task;
    const next: StoredTask = {
      ...rest,
      lastUpdatedAt: new Date().toISOString(),
      ...("result" in outcome ? { status: "completed", result: outcome.result } : { status: "failed", error: outcome.error }),
    };
    if (JSON.stringify(next).length <= this.maxTaskBytes) return next;
    const { result: _large, ...small } = next;
    return {
      ...small,
      status: "failed",
      error: { code: INTERNAL_ERROR, message: `The task's result exceeds the server's limit of ${this.maxTaskBytes} bytes` },
    };
  }

  #context(): TaskContext {
    return {
      taskId: this.taskId,
      signal: this.#controller.signal,
      setStatusMessage: async (message) => {
        await this.store.update(this.taskId, (task) =>
          ended(task) ? undefined : { ...task, statusMessage: message, lastUpdatedAt: new Date().toISOString() },
        );
      },
      ask: (requests) => this.#ask(requests),
    };
  }

  async #ask(requests: InputRequests): Promise<Record<string, InputResponse>> {
    const keys = Object.keys(requests);
    if (keys.length === 0) throw new TypeError("ask: give at least one input request");
    if (this.#waiting !== undefined) throw new TypeError("ask: the task is already waiting for input");
    const reused = keys.find((key) => this.#asked.has(key));
    if (reused !== undefined) throw new TypeError(`ask: the key ${reused} was used before in this task; keys are never reused`);
    keys.forEach((key) => this.#asked.add(key));
    const answers = new Promise<Record<string, InputResponse>>((resolve, reject) => (this.#waiting = { keys, resolve, reject }));
    const stored = await this.store.update(this.taskId, (task) =>
      ended(task)
        ? undefined
        : {
            ...task,
            status: "input_required",
            inputRequests: { ...task.inputRequests, ...requests },
            lastUpdatedAt: new Date().toISOString(),
          },
    );
    if (stored === undefined || ended(stored)) this.observe(stored);
    return answers;
  }

  /** A write to this task: cancellation aborts the work; answers to every waiting key resume it. */
  observe(task: StoredTask | undefined): void {
    if (task === undefined || task.status === "cancelled" || task.status === "failed") {
      this.#controller.abort(new Error("the task was cancelled"));
      const waiting = this.#waiting;
      this.#waiting = undefined;
      waiting?.reject(new Error("the task was cancelled"));
      return;
    }
    const waiting = this.#waiting;
    const responses = task.inputResponses ?? {};
    if (waiting === undefined || !waiting.keys.every((key) => key in responses)) return;
    this.#waiting = undefined;
    const answers = Object.fromEntries(waiting.keys.map((key) => [key, responses[key] as unknown as InputResponse]));
    void this.store.update(this.taskId, (current) => {
      const left = Object.fromEntries(Object.entries(current.inputResponses ?? {}).filter(([key]) => !waiting.keys.includes(key)));
      return { ...current, inputResponses: left };
    });
    waiting.resolve(answers);
  }
}

type Outcome = { result: JSONObject } | { error: NonNullable<StoredTask["error"]> };

/** A tool result as the JSON it is stored as (undefined members dropped, as on the wire). */
function asJson(result: TaskOutcome): JSONObject {
  return JSON.parse(JSON.stringify(result)) as JSONObject;
}

function ended(task: StoredTask): boolean {
  return task.status === "completed" || task.status === "failed" || task.status === "cancelled";
}

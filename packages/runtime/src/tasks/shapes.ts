/**
 * The tasks extension's facts and wire shapes, all reached through the generated EXTENSIONS
 * table (runtime/extensions.ts): its request methods, notification, filter key and error
 * code. Generated without the extension, every fact here is absent and the types fall back
 * to plain JSON objects, so the runtime still compiles and simply serves no tasks.
 */
import { ERROR_CODES, SUBSCRIPTION_KINDS, type ClientRequestMethod, type ClientRequests, type SubscriptionCapabilities } from "../protocol.js";
import { EXTENSIONS, type GeneratedExtensions } from "../extensions.js";
import { McpError, type JsonObject } from "../jsonrpc.js";
import type { StoredTask } from "./store.js";

/** The extension's identifier: the one fact the runtime names, to find the rest. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

const FACTS = EXTENSIONS[TASKS_EXTENSION];

/** The request method for one of the extension's verbs (get, update, cancel), read from the facts. */
export function taskMethod(verb: TaskVerb): string | undefined {
  return FACTS?.requests.find((method) => method.endsWith(`/${verb}`));
}
export type TaskVerb = "get" | "update" | "cancel";

export const TASK_NOTIFICATION: string | undefined = FACTS?.notifications[0];

interface KindFacts {
  readonly filterKey: string;
  readonly handlerCapability: string;
  readonly idParam?: string;
}
/** The listen-stream kind the extension adds (taskIds), or undefined. */
export const TASK_KIND: KindFacts | undefined = FACTS?.filterKeys.map((key) => (SUBSCRIPTION_KINDS as Readonly<Record<string, KindFacts>>)[key]).find(Boolean);

/** Whether this revision carries the extension at all. */
export const TASKS_AVAILABLE = FACTS !== undefined && taskMethod("get") !== undefined;

const MISSING_CAPABILITY: number =
  Object.values(FACTS?.errorCodes ?? {})[0] ?? (ERROR_CODES as Readonly<Record<string, number>>)["MissingRequiredClientCapabilityError"] ?? -32021;

/** -32021 naming the extension under `requiredCapabilities`, for a client that did not declare it. */
export function extensionRequired(what: string): McpError {
  return new McpError(MISSING_CAPABILITY, `${what} needs the ${TASKS_EXTENSION} extension: declare it in _meta clientCapabilities.extensions`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

export function taskCapabilities(): SubscriptionCapabilities {
  return (TASK_KIND === undefined ? {} : { [TASK_KIND.handlerCapability]: true }) as SubscriptionCapabilities;
}

type TaskFacts = GeneratedExtensions extends { readonly [TASKS_EXTENSION]: infer F } ? F : never;
type TaskRequestMethod = TaskFacts extends { readonly requests: readonly (infer M)[] } ? Extract<M, ClientRequestMethod> : never;
type VerbMethod<V extends TaskVerb> = Extract<TaskRequestMethod, `${string}/${V}`>;
/** The generated result type of a verb's request (GetTaskResult, ...), or a JSON object without the extension. */
export type TaskResultOf<V extends TaskVerb> = [VerbMethod<V>] extends [never] ? JsonObject : ClientRequests[VerbMethod<V>]["result"];
/** The generated params type of a verb's request, or a JSON object without the extension. */
export type TaskParamsOf<V extends TaskVerb> = [VerbMethod<V>] extends [never] ? JsonObject : ClientRequests[VerbMethod<V>]["params"];

/** What every task shape shares, without the status-specific fields. */
function base(task: StoredTask) {
  return {
    taskId: task.taskId,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    ...(task.pollIntervalMs === undefined ? {} : { pollIntervalMs: task.pollIntervalMs }),
  };
}

/**
 * One status's variant of the generated tasks/get result (CompletedTask & Result, ...), so
 * that each shape below is checked against the schema; any object without the extension.
 */
type GetVariant<S extends string> = [VerbMethod<"get">] extends [never] ? Record<string, unknown> : Extract<TaskResultOf<"get">, { status: S }>;

/** The task as tasks/get answers it (and notifications/tasks carries it): its status's fields only. */
export function detailedTask(task: StoredTask): TaskResultOf<"get"> {
  const common = { ...base(task), resultType: "complete" };
  switch (task.status) {
    case "input_required": {
      const waiting: GetVariant<"input_required"> = { ...common, status: "input_required", inputRequests: task.inputRequests ?? {} };
      return waiting as TaskResultOf<"get">;
    }
    case "completed": {
      const completed: GetVariant<"completed"> = { ...common, status: "completed", result: task.result ?? {} };
      return completed as TaskResultOf<"get">;
    }
    case "failed": {
      const failed: GetVariant<"failed"> = { ...common, status: "failed", error: task.error ?? { code: -32603, message: "the task failed" } };
      return failed as TaskResultOf<"get">;
    }
    case "cancelled": {
      const cancelled: GetVariant<"cancelled"> = { ...common, status: "cancelled" };
      return cancelled as TaskResultOf<"get">;
    }
    default: {
      const working: GetVariant<"working"> = { ...common, status: "working" };
      return working as TaskResultOf<"get">;
    }
  }
}

/** The flat `resultType: "task"` answer of a request that became a task: its first state, nothing inlined. */
export function createdTask(task: StoredTask): JsonObject {
  return { ...base(task), status: task.status, resultType: "task" };
}

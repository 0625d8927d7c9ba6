/**
 * Seeded random JSON-RPC frames for the fuzz pass: well-formed requests and notifications
 * built from the generated method lists, then mutated (bytes flipped, cut, duplicated,
 * wrapped in a JSON string, turned into a response) or replaced by random JSON and junk.
 * Every frame is one line (no raw newline) and the fuzzer's own reading of what the
 * frame is (`expectation`) follows the JSON-RPC 2.0 rules, not the runtime's code.
 */
import { CLIENT_NOTIFICATION_METHODS, CLIENT_REQUEST_METHODS, META_KEYS } from "../../generated/index.js";
import * as legacy from "../../generated/legacy-facts.js";
import { TASKS_EXTENSION } from "../../packages/runtime/src/index.js";

export const VERSION = "2026-07-28";

/**
 * What frames are drawn from: the methods of the era under fuzz, and the task ids seen in
 * answers so far (a fuzzer that reads answers adds them), so the tasks verbs reach real tasks.
 */
export interface FramePool {
  readonly requests: readonly string[];
  readonly notifications: readonly string[];
  readonly taskIds: string[];
}

export function modernPool(): FramePool {
  return { requests: CLIENT_REQUEST_METHODS, notifications: CLIENT_NOTIFICATION_METHODS, taskIds: [] };
}

/** A legacy session's frames: its own methods (initialize, ping, resources/subscribe...) and the modern ones. */
export function legacyPool(): FramePool {
  const union = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])].sort();
  return {
    requests: union(legacy.CLIENT_REQUEST_METHODS, CLIENT_REQUEST_METHODS),
    notifications: union(legacy.CLIENT_NOTIFICATION_METHODS, CLIENT_NOTIFICATION_METHODS),
    taskIds: [],
  };
}

/** Clean tools/call frames that make tasks (two that finish, two that wait for input), to open a run with. */
export function taskMakers(): string[] {
  const meta = { [META_KEYS.protocolVersion]: VERSION, [META_KEYS.clientCapabilities]: { extensions: { [TASKS_EXTENSION]: {} } } };
  return ["job", "job", "asking-job", "asking-job"].map((name, i) =>
    JSON.stringify({ jsonrpc: "2.0", id: `task-maker-${i}`, method: "tools/call", params: { name, arguments: { ms: 40 }, _meta: meta } }),
  );
}

/** Task ids named in an answer (a task result, a tasks/get), for the pool. */
export function collectTaskIds(pool: FramePool, answer: unknown): void {
  const taskId = (answer as { result?: { task?: { taskId?: unknown }; taskId?: unknown } } | undefined)?.result;
  for (const id of [taskId?.task?.taskId, taskId?.taskId]) {
    if (typeof id === "string" && !pool.taskIds.includes(id) && pool.taskIds.length < 64) pool.taskIds.push(id);
  }
}

/** mulberry32: a small, fast, seedable PRNG; enough to make every run reproducible. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Random {
  readonly next: () => number;
  constructor(readonly seed: number) {
    this.next = mulberry32(seed);
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  text(maxLength: number): string {
    const alphabet = ["a", "Z", "0", " ", '"', "\\", "{", "}", "[", "]", ":", ",", "é", "\u2028", "\u0000", "\r", "😀", "\uD800"];
    let out = "";
    for (let i = this.int(maxLength + 1); i > 0; i--) out += this.pick(alphabet);
    return out;
  }
}

export function requestMeta(random: Random): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    [META_KEYS.protocolVersion]: random.chance(0.9) ? VERSION : random.pick(["2025-11-25", "", "2099-01-01", 7]),
    [META_KEYS.clientCapabilities]: random.chance(0.95)
      ? random.chance(0.4)
        ? { extensions: { [TASKS_EXTENSION]: {} } }
        : {}
      : random.pick([null, [], "x"]),
  };
  if (random.chance(0.1)) meta[META_KEYS.logLevel] = random.pick(["debug", "loud", 3]);
  if (random.chance(0.1)) meta.progressToken = random.pick(["p", 1, 1.5, null]);
  if (random.chance(0.1)) meta.principal = "admin";
  return meta;
}

function randomParams(random: Random, method: string, pool: FramePool): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  if (method.startsWith("tasks/")) {
    params.taskId = pool.taskIds.length > 0 && random.chance(0.7) ? random.pick(pool.taskIds) : random.pick(["t-unknown", random.text(8), 7, null]);
    if (method === "tasks/update") params.inputResponses = random.pick([{ go: { action: "accept", content: {} } }, {}, null, "x"]);
  } else if (method === "tools/call") {
    params.name = random.chance(0.4) ? random.pick(["job", "asking-job"]) : random.pick(["echo", "slow", "fail", "missing", ""]);
    params.arguments = random.chance(0.8) ? { text: random.text(20), ms: random.int(30) } : random.pick([null, [], "x"]);
  } else if (method === "subscriptions/listen") {
    const taskIds = pool.taskIds.length > 0 ? [random.pick(pool.taskIds)] : ["t-unknown"];
    params.notifications = random.pick([{ toolsListChanged: true }, { resourceSubscriptions: ["file:///a"] }, { toolsListChanged: "yes" }, {}, { taskIds }]);
  } else if (method.startsWith("resources/") || method.startsWith("prompts/get")) {
    params.uri = random.pick(["file:///a", random.text(10)]);
    params.name = random.text(6);
  } else if (method === "notifications/cancelled") {
    params.requestId = random.pick([1, "x", null]);
  }
  if (random.chance(0.93)) params._meta = requestMeta(random);
  return params;
}

/** Tools calls and the tasks verbs weighted up, so that tasks get made and then reached. */
function requestMethod(random: Random, pool: FramePool): string {
  if (random.chance(0.1)) return "tools/call";
  if (pool.taskIds.length > 0 && random.chance(0.1)) return random.pick(["tasks/get", "tasks/update", "tasks/cancel"]);
  return random.chance(0.93) ? random.pick(pool.requests) : random.pick(["nope/nope", "", "tools/list ", "__proto__"]);
}

/** A message that is well-formed at the JSON-RPC level (its `_meta` and params may not be). */
export function wellFormed(random: Random, id: string | number, pool: FramePool): Record<string, unknown> {
  if (random.chance(0.15)) {
    const method = random.pick(pool.notifications);
    return { jsonrpc: "2.0", method, params: randomParams(random, method, pool) };
  }
  const method = requestMethod(random, pool);
  return { jsonrpc: "2.0", id, method, params: randomParams(random, method, pool) };
}

function randomJson(random: Random, depth = 0): unknown {
  switch (random.int(depth > 3 ? 4 : 7)) {
    case 0:
      return random.text(8);
    case 1:
      return random.pick([0, -1, 1e308, 3.5, Number.MAX_SAFE_INTEGER + 2]);
    case 2:
      return random.pick([true, false, null]);
    case 3:
      return {};
    case 4:
      return Array.from({ length: random.int(4) }, () => randomJson(random, depth + 1));
    default: {
      const value: Record<string, unknown> = {};
      for (let i = random.int(5); i > 0; i--)
        value[random.pick(["jsonrpc", "id", "method", "params", "result", "error", "__proto__", random.text(4)])] = randomJson(random, depth + 1);
      return value;
    }
  }
}

/** One frame of text: well-formed, mutated, or junk. Never contains a raw newline. */
export function frame(random: Random, id: string | number, pool: FramePool = modernPool()): string {
  const message = wellFormed(random, id, pool);
  const text = JSON.stringify(message);
  switch (random.int(10)) {
    case 0: {
      const bytes = [...text];
      for (let flips = 1 + random.int(3); flips > 0; flips--) bytes[random.int(bytes.length)] = random.pick(['"', "{", "}", ",", ":", "x", "\\", " "]);
      return oneLine(bytes.join(""));
    }
    case 1:
      return text.slice(0, random.int(text.length));
    case 2:
      return JSON.stringify(text); // a JSON string holding a request
    case 3:
      return JSON.stringify({ jsonrpc: "2.0", id, ...(random.chance(0.5) ? { result: {} } : { error: { code: -1, message: "x" } }) });
    case 4:
      return oneLine(JSON.stringify(randomJson(random)));
    case 5:
      return random.chance(0.5) ? `[${text}]` : text + text;
    case 6:
      return oneLine(random.text(40));
    default:
      return text;
  }
}

function oneLine(text: string): string {
  return text.replace(/\n/g, " ");
}

/** What JSON-RPC 2.0 says a frame is, read independently of the runtime. */
export type Expectation =
  { kind: "request"; id: string | number; method: string } | { kind: "notification" } | { kind: "response" } | { kind: "parse-error" } | { kind: "invalid" };

export function expectation(text: string): Expectation {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "parse-error" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { kind: "invalid" };
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== "2.0") return { kind: "invalid" };
  const params = message.params;
  const paramsOk = params === undefined || (typeof params === "object" && params !== null && !Array.isArray(params));
  if ("method" in message) {
    if (typeof message.method !== "string" || !paramsOk) return { kind: "invalid" };
    if (!("id" in message)) return { kind: "notification" };
    const id = message.id;
    if (typeof id === "string" || (typeof id === "number" && Number.isFinite(id))) return { kind: "request", id, method: message.method };
    return { kind: "invalid" };
  }
  return "result" in message || "error" in message ? { kind: "response" } : { kind: "invalid" };
}

/**
 * A steady, bounded load on replicas behind a balancer, for tests that break the broker under
 * it: each worker repeats one kind of request (a 2026-07-28 task created, a task read, a
 * 2025-11-25 session opened with the official 1.x client, a call on an open session) and
 * records every attempt and every write the server acknowledged, so the test can say when
 * calls succeeded again and check that nothing acknowledged was lost.
 */
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { postJsonRpc } from "../../support/json-rpc-post.js";

/** How long one request may take before the attempt counts as failed. */
export const REQUEST_TIMEOUT_MS = 5000;
/** Pause between a worker's requests: a steady load two shared cores carry beside the brokers. */
const PAUSE_MS = 50;
/**
 * Sessions are opened more slowly, and no more once this many are open: the server holds at
 * most 100 legacy sessions per client address, and every client here is 127.0.0.1.
 */
const SESSION_PAUSE_MS = 400;
const MAX_SESSIONS = 80;

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "sentinel-failover", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

export interface Attempt {
  readonly kind: string;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly ok: boolean;
  readonly error?: string;
}

/** A 2025-11-25 session the server acknowledged (its initialize answered), through the 1.x client. */
export interface OpenSession {
  readonly name: string;
  readonly sessionId: string;
  readonly acknowledgedAt: number;
  toolNames(): Promise<string[]>;
  close(): Promise<void>;
}

let nextId = 1;

/** One 2026-07-28 request; its result, or a thrown error naming its code. */
export async function modernCall(url: string, method: string, params: Record<string, unknown>): Promise<any> {
  const message = { jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: META } };
  const { status, text, message: body } = await postJsonRpc(url, message, REQUEST_TIMEOUT_MS);
  if (body?.error) throw new Error(`${body.error.code}: ${body.error.message}`);
  if (body?.result === undefined) throw new Error(`HTTP ${status}: ${text.slice(0, 200)}`);
  return body.result;
}

/** Opens a 2025-11-25 session with the official 1.x client; resolves once it is acknowledged. */
export async function openSession(url: string, name: string): Promise<OpenSession> {
  const client = new ClientV1({ name, version: "1.0.0" });
  const transport = new HttpV1(new URL(url));
  try {
    await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return {
    name,
    sessionId: transport.sessionId!,
    acknowledgedAt: Date.now(),
    toolNames: async () => (await client.listTools({}, { timeout: REQUEST_TIMEOUT_MS })).tools.map((tool) => tool.name).sort(),
    close: () => client.close(),
  };
}

export interface Load {
  readonly attempts: Attempt[];
  /** Task ids whose creation the server acknowledged, in order. */
  readonly tasks: string[];
  readonly sessions: OpenSession[];
  /** Stops every worker and waits for their last requests. */
  stop(): Promise<void>;
}

/**
 * Starts the workers on `url` (the balancer's /mcp), adding to `tasks` and `sessions` (which
 * may already hold some); each stops when `stop` is called or after `maxMs`.
 */
export function startLoad(url: string, tasks: string[], sessions: OpenSession[], maxMs: number): Load {
  const attempts: Attempt[] = [];
  let stopping = false;
  const deadline = Date.now() + maxMs;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
  const worker = async (kind: string, request: () => Promise<void>, pauseMs = PAUSE_MS, more = () => true) => {
    while (!stopping && Date.now() < deadline && more()) {
      const startedAt = Date.now();
      try {
        await request();
        attempts.push({ kind, startedAt, endedAt: Date.now(), ok: true });
      } catch (error) {
        attempts.push({ kind, startedAt, endedAt: Date.now(), ok: false, error: error instanceof Error ? error.message : String(error) });
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  };
  let opened = 0;
  const workers = [
    worker("task created", async () => {
      const created = await modernCall(url, "tools/call", { name: "long_job", arguments: {} });
      if (created.resultType !== "task") throw new Error(`not a task: ${JSON.stringify(created)}`);
      tasks.push(created.taskId);
    }),
    worker("task read", async () => {
      const taskId = pick(tasks);
      const task = await modernCall(url, "tasks/get", { taskId });
      if (task.taskId !== taskId) throw new Error(`tasks/get ${taskId} answered ${JSON.stringify(task)}`);
    }),
    worker(
      "session opened",
      async () => void sessions.push(await openSession(url, `load-${opened++}`)),
      SESSION_PAUSE_MS,
      () => sessions.length < MAX_SESSIONS,
    ),
    worker("session call", async () => {
      const names = await pick(sessions).toolNames();
      if (!names.includes("long_job")) throw new Error(`tools/list answered ${names.join(",")}`);
    }),
  ];
  return {
    attempts,
    tasks,
    sessions,
    async stop() {
      stopping = true;
      await Promise.all(workers);
    },
  };
}

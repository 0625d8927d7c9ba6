import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mcpRequestHeaders } from "../../../packages/runtime/src/transports/http-request.js";
import type { JsonRpcMessage } from "../../../packages/runtime/src/index.js";
import { REDIS_TOPOLOGIES, startSharedRedis, type SharedRedis } from "../../support/shared-redis.js";
import { addLongJobTool, startReplicas, type Replicas } from "./replicas.js";
import { scaffoldProject, type ScaffoldedProject } from "./scaffolded.js";

/** The bound the issue sets: a task whose replica died is failed within this. */
const FAILED_WITHIN_MS = 30_000;

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "tasks-replicas", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

let nextId = 1;
/** One 2026-07-28 request over Streamable HTTP to one replica; its result, or a thrown error with its code. */
async function call(url: string, method: string, params: Record<string, unknown>): Promise<any> {
  const message = { jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: META } };
  const response = await fetch(url, { method: "POST", headers: mcpRequestHeaders(message as JsonRpcMessage), body: JSON.stringify(message) });
  const text = await response.text();
  const json = response.headers.get("content-type")?.includes("text/event-stream")
    ? text
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .at(-1)!
        .slice(5)
    : text;
  const body = JSON.parse(json);
  if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
  return body.result;
}

/** Polls tasks/get on `url` until the task has `status`; how long that took. */
async function untilStatus(url: string, taskId: string, status: string, timeoutMs: number): Promise<{ task: any; waitedMs: number }> {
  const started = Date.now();
  let task: any;
  while (Date.now() - started < timeoutMs) {
    task = await call(url, "tasks/get", { taskId });
    if (task.status === status) return { task, waitedMs: Date.now() - started };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`task ${taskId} was not ${status} on ${url} within ${timeoutMs} ms: ${JSON.stringify(task)}`);
}

for (const topology of REDIS_TOPOLOGIES) {
  describe(`tasks across three scaffolded replicas sharing Redis (${topology})`, { timeout: 240_000 }, () => {
    let redis: SharedRedis;
    let project: ScaffoldedProject;
    let replicas: Replicas;
    let urls: string[];

    before(async () => {
      redis = await startSharedRedis(topology);
      project = scaffoldProject(["--transport", "http", "--event-source", "redis"], addLongJobTool);
      replicas = await startReplicas(project, 3, { REDIS_URL: redis.url, SHUTDOWN_DELAY_MS: "500" });
      urls = replicas.ports.map((port) => `http://127.0.0.1:${port}/mcp`);
    });
    after(async () => {
      await replicas?.stop();
      project?.remove();
      await redis?.stop();
    });

    test("a task created via one replica is read and cancelled via the others", async () => {
      const created = await call(urls[0]!, "tools/call", { name: "long_job", arguments: {} });
      assert.equal(created.resultType, "task");
      assert.equal((await call(urls[1]!, "tasks/get", { taskId: created.taskId })).status, "working");
      assert.equal((await call(urls[2]!, "tasks/get", { taskId: created.taskId })).status, "working");
      await call(urls[2]!, "tasks/cancel", { taskId: created.taskId });
      const { task } = await untilStatus(urls[1]!, created.taskId, "cancelled", 5000);
      assert.equal(task.result, undefined, "the work aborted on its replica did not overwrite the cancel");
    });

    test("lease: SIGKILL of a task's replica marks the task failed within 30 s", async (t) => {
      const created = await call(urls[0]!, "tools/call", { name: "long_job", arguments: {} });
      replicas.server(0).child.kill("SIGKILL");
      await replicas.server(0).exited;
      assert.equal((await call(urls[1]!, "tasks/get", { taskId: created.taskId })).status, "working", "not failed before its lease lapsed");
      const { task, waitedMs } = await untilStatus(urls[1]!, created.taskId, "failed", FAILED_WITHIN_MS);
      t.diagnostic(`failed ${waitedMs} ms after its replica was killed (lease 10 s, sweep every 5 s)`);
      assert.match(task.statusMessage, /stopped before it finished/);
    });

    test("SIGTERM: a replica fails the tasks it runs as it shuts down, and the others report it", async (t) => {
      const created = await call(urls[1]!, "tools/call", { name: "long_job", arguments: {} });
      const signalled = Date.now();
      replicas.server(1).child.kill("SIGTERM");
      assert.equal(await replicas.server(1).exited, 0);
      const { task } = await untilStatus(urls[2]!, created.taskId, "failed", 1000);
      t.diagnostic(`failed by the stopping replica itself, ${Date.now() - signalled} ms after SIGTERM`);
      assert.match(task.statusMessage, /shut down before it finished/);
    });
  });
}

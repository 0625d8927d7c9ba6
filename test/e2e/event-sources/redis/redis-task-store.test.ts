/**
 * Tasks shared through a real redis-server by two server processes: a task created on one
 * process is read, answered and cancelled through the other, and its work (running where it
 * was created) sees the answer and the cancel.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { mcpRequestHeaders } from "../../../../packages/runtime/src/transports/http-request.js";
import { connectRedisTaskStore, RedisTimeoutError, TaskStoreFullError } from "../../../../templates/event-sources/redis/redis-task-store.js";
import { eventually } from "../../../support/eventually.js";
import { waitForStdout } from "../../../support/child-output.js";
import { startRedisServer, type RedisServer } from "../../../support/redis-server.js";
import { repoRoot } from "../../../support/schemas.js";
import { startTaskApp } from "./support/task-app.js";

const T = { timeout: 60_000 };
const SCRIPT = fileURLToPath(new URL("./support/task-app.ts", import.meta.url));
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

let nextId = 1;
/** One JSON-RPC request over Streamable HTTP, with the headers the body calls for. */
async function call(url: string, method: string, params: Record<string, unknown>): Promise<any> {
  const message = { jsonrpc: "2.0" as const, id: nextId++, method, params: { ...params, _meta: META } };
  const response = await fetch(url, { method: "POST", headers: mcpRequestHeaders(message), body: JSON.stringify(message) });
  const text = await response.text();
  const body = response.headers.get("content-type")?.includes("text/event-stream")
    ? JSON.parse(
        text
          .split("\n")
          .find((line) => line.startsWith("data:"))!
          .slice(5),
      )
    : JSON.parse(text);
  if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
  return body.result;
}

async function statusOn(url: string, taskId: string, status: string): Promise<any> {
  let last: any;
  for (let attempt = 0; attempt < 300; attempt++) {
    last = await call(url, "tasks/get", { taskId });
    if (last.status === status) return last;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`task never reached ${status} on ${url}: ${JSON.stringify(last)}`);
}

describe("tasks in Redis, shared by two server processes", () => {
  let redis: RedisServer;
  let processA: ReturnType<typeof spawn>;
  let urlA: string;
  let b: Awaited<ReturnType<typeof startTaskApp>>;

  before(async () => {
    redis = await startRedisServer();
    processA = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
      cwd: repoRoot,
      env: { ...process.env, REDIS_URL: redis.url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    [, urlA] = await waitForStdout(processA, /listening (\S+)/, 30_000, () => "");
    b = await startTaskApp(redis.url, "process-b");
  });

  after(async () => {
    if (processA?.exitCode === null) {
      processA.kill("SIGKILL");
      await new Promise((resolve) => processA.once("exit", resolve));
    }
    await b?.handle.close();
    await b?.server.close();
    await redis?.stop();
  });

  it("a task created on one process is read at once and cancelled from the other, and its work there is aborted", T, async () => {
    const created = await call(urlA, "tools/call", { name: "wait" });
    assert.equal(created.resultType, "task");
    const seenOnB = await call(b.url, "tasks/get", { taskId: created.taskId });
    assert.equal(seenOnB.status, "working", "durably created before the answer named it");
    assert.equal((await call(b.url, "tasks/cancel", { taskId: created.taskId })).resultType, "complete");
    const cancelled = await statusOn(urlA, created.taskId, "cancelled");
    assert.equal(cancelled.result, undefined, "the aborted work did not overwrite the cancel");
  });

  it("an input request asked on one process is answered through the other, and the task completes with the answer", T, async () => {
    const created = await call(urlA, "tools/call", { name: "ask" });
    const waiting = await statusOn(b.url, created.taskId, "input_required");
    assert.deepEqual(Object.keys(waiting.inputRequests), ["name"]);
    await call(b.url, "tasks/update", { taskId: created.taskId, inputResponses: { name: { action: "accept", content: { name: "Ada" } } } });
    const done = await statusOn(b.url, created.taskId, "completed");
    assert.equal(done.result.content[0].text, "Hello, Ada");
  });

  it("an unknown task is -32602 on every process", T, async () => {
    await assert.rejects(call(b.url, "tasks/get", { taskId: "missing" }), (error: any) => error.code === -32602);
  });

  it("the store bounds the live tasks it holds", T, async () => {
    const store = await connectRedisTaskStore({ url: redis.url, prefix: "test:bounded:", maxTasks: 1 });
    try {
      const task = (taskId: string) => ({ taskId, expiresAt: Date.now() + 60_000 });
      await store.create(task("one"));
      await assert.rejects(store.create(task("two")), TaskStoreFullError);
      assert.equal((await store.get("one"))?.taskId, "one");
    } finally {
      await store.close();
    }
  });

  it("finished tasks count against bytes, not the maxTasks slots", T, async () => {
    const store = await connectRedisTaskStore<{ taskId: string; expiresAt: number; status: string }>({ url: redis.url, prefix: "test:finished:", maxTasks: 1 });
    try {
      const task = (taskId: string) => ({ taskId, status: "working", expiresAt: Date.now() + 60_000 });
      await store.create(task("one"));
      await store.update("one", (current) => ({ ...current, status: "completed" }));
      await store.create(task("two"));
      assert.equal((await store.get("one"))?.status, "completed", "the finished task is still readable");
      await assert.rejects(store.create(task("three")), TaskStoreFullError);
    } finally {
      await store.close();
    }
  });

  it("lease: a task whose process stopped renewing is marked failed by another process's sweep; a renewed one stays working", T, async () => {
    type Task = { taskId: string; expiresAt: number; status: string; statusMessage?: string; error?: { code: number } };
    const options = { url: redis.url, prefix: "test:lease:", leaseMs: 300, sweepMs: 100 };
    const [dying, alive, watcher] = await Promise.all([0, 1, 2].map(() => connectRedisTaskStore<Task>(options)));
    try {
      const task = (taskId: string) => ({ taskId, status: "working", expiresAt: Date.now() + 60_000 });
      await dying!.create(task("orphan"));
      await alive!.create(task("kept"));
      await dying!.close(); // stops renewing, as a killed process would
      const started = Date.now();
      while ((await watcher!.get("orphan"))?.status !== "failed") {
        assert.ok(Date.now() - started < 5000, "the orphan was failed within 5 s");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const orphan = await watcher!.get("orphan");
      assert.equal(orphan?.error?.code, -32603);
      assert.match(orphan?.statusMessage ?? "", /stopped before it finished/);
      assert.equal((await watcher!.get("kept"))?.status, "working", "a task whose lease is renewed is left alone");
    } finally {
      await Promise.all([alive!.close(), watcher!.close()]);
    }
  });

  it("a task being created is never taken for an orphan by another process's sweep: its lease exists before it is counted", T, async () => {
    type Task = { taskId: string; expiresAt: number; status: string };
    const creator = await connectRedisTaskStore<Task>({ url: redis.url, prefix: "test:creating:" });
    const sweeper = await connectRedisTaskStore<Task>({ url: redis.url, prefix: "test:creating:", sweepMs: 1 });
    try {
      const taskIds = Array.from({ length: 400 }, (_, index) => `creating-${index}`);
      // Concurrent creates keep the sweep running between one task's counting and its writing.
      await Promise.all(taskIds.map((taskId) => creator.create({ taskId, status: "working", expiresAt: Date.now() + 60_000 })));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const failed = [];
      for (const taskId of taskIds) if ((await sweeper.get(taskId))?.status !== "working") failed.push(taskId);
      assert.deepEqual(failed, [], "no task was failed while its creator was alive");
    } finally {
      await Promise.all([creator.close(), sweeper.close()]);
    }
  });

  // Last: it restarts Redis under the processes above.
  it("a watcher is told when the change channel is heard again after a restart, and hears writes again", T, async () => {
    type Task = { taskId: string; expiresAt: number; status: string };
    const options = { url: redis.url, prefix: "test:resumed:" };
    const [writer, watcher] = await Promise.all([0, 1].map(() => connectRedisTaskStore<Task>(options)));
    try {
      const heard: string[] = [];
      let resumed = 0;
      watcher!.watch(
        (task) => heard.push(task.taskId),
        () => resumed++,
      );
      await redis.kill();
      await redis.restart();
      const started = Date.now();
      while (resumed === 0) {
        assert.ok(Date.now() - started < 20_000, "told within 20 s of the restart");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(resumed, 1);
      while (!writer!.ready) {
        assert.ok(Date.now() - started < 20_000, "the writer reconnected within 20 s");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await writer!.create({ taskId: "after", status: "working", expiresAt: Date.now() + 60_000 });
      while (!heard.includes("after")) {
        assert.ok(Date.now() - started < 30_000, "the write after the restart was heard");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await writer!.close();
      await watcher!.close();
    }
  });

  it(
    "a Redis that stops answering: not ready while its PING goes unanswered, a read fails within the command timeout; ready again once it answers",
    T,
    async () => {
      const store = await connectRedisTaskStore({ url: redis.url, prefix: "test:silent:", commandTimeoutMs: 500, probeEveryMs: 100, probeTimeoutMs: 200 });
      try {
        assert.equal(store.ready, true);
        redis.freeze();
        try {
          await assert.rejects(store.get("any"), RedisTimeoutError);
          assert.ok(await eventually(() => !store.ready, 10_000), "not ready while Redis does not answer");
        } finally {
          redis.thaw();
        }
        assert.ok(await eventually(() => store.ready, 10_000), "ready again");
        assert.equal(await store.get("any"), undefined);
      } finally {
        await store.close();
      }
    },
  );
});

describe("tasks in Redis across a restart of Redis", () => {
  let redis: RedisServer;

  before(async () => {
    redis = await startRedisServer();
  });

  after(async () => {
    await redis?.stop();
  });

  /**
   * A finished task made through a server, Redis killed and started again (with AOF for both
   * runs, or with no persistence), then `tasks/get` through a new server: its result, or its error.
   */
  async function readAfterRestart(appendOnly: boolean): Promise<{ task?: any; error?: any }> {
    if (appendOnly) {
      await redis.kill();
      await redis.restart({ appendOnly: true });
    }
    const before = await startTaskApp(redis.url, "before-restart");
    let taskId: string;
    try {
      taskId = (await call(before.url, "tools/call", { name: "done" })).taskId;
      await statusOn(before.url, taskId, "completed");
    } finally {
      await before.handle.close();
      await before.server.close();
    }
    await redis.kill();
    await redis.restart({ appendOnly });
    const afterwards = await startTaskApp(redis.url, "after-restart");
    try {
      return await call(afterwards.url, "tasks/get", { taskId }).then(
        (task) => ({ task }),
        (error: unknown) => ({ error }),
      );
    } finally {
      await afterwards.handle.close();
      await afterwards.server.close();
    }
  }

  it("a task survives a Redis restart only with persistence on: lost without it, kept with its result under AOF", T, async () => {
    const lost = await readAfterRestart(false);
    assert.equal(lost.error?.code, -32602, "without persistence the task is gone");
    const kept = await readAfterRestart(true);
    assert.equal(kept.task?.status, "completed", `with AOF the task is kept: ${JSON.stringify(kept)}`);
    assert.equal(kept.task.result.content[0].text, "done");
  });
});

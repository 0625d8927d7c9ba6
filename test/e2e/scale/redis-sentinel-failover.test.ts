/**
 * Three replicas behind the README's HAProxy recipe on a `redis+sentinel://` URL (a master, a
 * replica, three sentinels), under a steady load of 2025-11-25 sessions opened and called with
 * the official 1.x client and 2026-07-28 tasks created and read: the master is SIGKILLed, and
 * within RECOVERY_BOUND_MS every call through the balancer succeeds again; every session and
 * task acknowledged before, during or after the kill is still there; the old master restarted
 * comes back as a replica and changes nothing (writes go on to the promoted one).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { haproxyMissing, type Balancer } from "../../support/haproxy.js";
import { startRedisSentinelSet, type RedisSentinelSet } from "../../support/redis-sentinel.js";
import { modernCall, openSession, startLoad, type Attempt, type OpenSession } from "./failover-load.js";
import { addLongJobTool, startRecipeBalancer, startReplicas, type Replicas } from "./replicas.js";
import { scaffoldProject, type ScaffoldedProject } from "./scaffolded.js";

/**
 * The requirement: calls succeed again within 10 s of the kill. The sentinels need about
 * 1 s (down-after-milliseconds) plus an election to promote the replica; the rest is the
 * clients finding it.
 */
const RECOVERY_BOUND_MS = 10_000;
/** Load before the kill, and after the bound (every call then must succeed). */
const LOAD_BEFORE_MS = 2000;
const LOAD_AFTER_BOUND_MS = 3000;
/** Load after the old master is back and synced; the bound of that load if restarting it hangs. */
const LOAD_AFTER_RETURN_MS = 2000;
const RETURN_LOAD_MAX_MS = 40_000;
/** Where the task store keeps a task (its default prefix). */
const taskKey = (taskId: string) => `mcp:tasks:task:{${taskId}}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a sentinel failover under load, three replicas behind HAProxy", { skip: haproxyMissing(), timeout: 180_000 }, () => {
  let sentinels: RedisSentinelSet;
  let project: ScaffoldedProject;
  let replicas: Replicas;
  let balancer: Balancer;
  const sessions: OpenSession[] = [];
  const tasks: string[] = [];

  before(async () => {
    sentinels = await startRedisSentinelSet();
    project = scaffoldProject(["--transport", "http", "--event-source", "redis"], addLongJobTool);
    replicas = await startReplicas(project, 3, { REDIS_URL: sentinels.url });
    balancer = await startRecipeBalancer(project, replicas.ports);
  });
  after(async () => {
    for (const session of sessions) await session.close().catch(() => {});
    await balancer?.stop();
    await replicas?.stop();
    project?.remove();
    await sentinels?.stop();
  });

  /** Reads every acknowledged task and session through the balancer: what each answered, and what is missing. */
  const readBack = async () => {
    const statuses = new Map<string, string>();
    const missing: string[] = [];
    for (const taskId of tasks) {
      await modernCall(endpoint(), "tasks/get", { taskId }).then(
        (task) => statuses.set(taskId, task.status),
        (error) => missing.push(`task ${taskId}: ${error.message}`),
      );
    }
    for (const session of sessions) {
      await session.toolNames().then(
        (names) => (names.includes("long_job") ? undefined : missing.push(`session ${session.name}: tools ${names.join(",")}`)),
        (error) => missing.push(`session ${session.name}: ${error.message}`),
      );
    }
    return { statuses, missing };
  };
  const endpoint = () => `${balancer.url}/mcp`;

  test("SIGKILL of the master: calls succeed again within 10 s, nothing acknowledged is lost, the old master back changes nothing", async (t) => {
    for (let i = 0; i < 4; i++) {
      sessions.push(await openSession(endpoint(), `before-${i}`));
      tasks.push((await modernCall(endpoint(), "tools/call", { name: "long_job", arguments: {} })).taskId);
    }
    const load = startLoad(endpoint(), tasks, sessions, LOAD_BEFORE_MS + RECOVERY_BOUND_MS + LOAD_AFTER_BOUND_MS + 30_000);
    let killedAt = 0;
    try {
      await sleep(LOAD_BEFORE_MS);
      const first = sentinels.masterPort()!;
      killedAt = Date.now();
      const promoted = await sentinels.failOver();
      t.diagnostic(`master ${first} killed; sentinels named ${promoted} after ${Date.now() - killedAt} ms`);
      await sleep(Math.max(0, killedAt + RECOVERY_BOUND_MS + LOAD_AFTER_BOUND_MS - Date.now()));
    } finally {
      await load.stop();
    }

    const failed = load.attempts.filter((attempt) => !attempt.ok);
    const describeAttempt = (attempt: Attempt) => `${attempt.kind} at +${attempt.startedAt - killedAt} ms: ${attempt.error}`;
    const lastFailedEnd = Math.max(killedAt, ...failed.map((attempt) => attempt.endedAt));
    t.diagnostic(
      `${load.attempts.length} calls, ${failed.length} failed; last failure ended ${lastFailedEnd - killedAt} ms after the kill; ` +
        `${tasks.length} tasks and ${sessions.length} sessions acknowledged`,
    );
    assert.deepEqual(failed.filter((attempt) => attempt.endedAt < killedAt).map(describeAttempt), [], "no call that ended before the kill failed");
    const late = load.attempts.filter((attempt) => attempt.startedAt >= killedAt + RECOVERY_BOUND_MS);
    assert.deepEqual(late.filter((attempt) => !attempt.ok).map(describeAttempt), [], "every call started 10 s after the kill succeeded");
    for (const kind of ["task created", "task read", "session opened", "session call"]) {
      assert.ok(
        late.some((attempt) => attempt.kind === kind),
        `some ${kind} ran after the bound`,
      );
    }

    const afterFailover = await readBack();
    assert.deepEqual(afterFailover.missing, [], "every acknowledged task and session is still there");

    // The old master comes back under the same load: no call fails, and nothing reads otherwise.
    const promoted = sentinels.masterPort()!;
    const returnLoad = startLoad(endpoint(), tasks, sessions, RETURN_LOAD_MAX_MS);
    let restarted: number;
    try {
      restarted = await sentinels.restartKilled();
      await sleep(LOAD_AFTER_RETURN_MS);
    } finally {
      await returnLoad.stop();
    }
    const failedOnReturn = returnLoad.attempts.filter((attempt) => !attempt.ok);
    t.diagnostic(`old master ${restarted} back as a replica of ${promoted}: ${returnLoad.attempts.length} calls meanwhile, ${failedOnReturn.length} failed`);
    assert.deepEqual(failedOnReturn.map(describeAttempt), [], "no call failed while the old master came back");
    assert.equal(sentinels.masterPort(), promoted, "the sentinels still name the promoted master");
    const afterReturn = await readBack();
    assert.deepEqual(afterReturn.missing, [], "every acknowledged task and session is still there with the old master back");
    const sameTasks = [...afterFailover.statuses].filter(([taskId, status]) => afterReturn.statuses.get(taskId) !== status);
    assert.deepEqual(sameTasks, [], "and each task read after the failover reads the same");

    // Writes go on to the promoted master, and reach the old one only as its replica.
    sessions.push(await openSession(endpoint(), "after-return"));
    const created = await modernCall(endpoint(), "tools/call", { name: "long_job", arguments: {} });
    assert.equal((await modernCall(endpoint(), "tasks/get", { taskId: created.taskId })).status, "working");
    assert.equal(sentinels.cli(promoted, "exists", taskKey(created.taskId)).trim(), "1", "the new task is on the promoted master");
    assert.equal(sentinels.cli(restarted, "exists", taskKey(created.taskId)).trim(), "1", "and, acknowledged, on its replica");
    assert.match(sentinels.cli(restarted, "role"), /^slave/, "the old master is a replica");
    assert.match(sentinels.cli(restarted, "set", "probe", "1"), /READONLY/, "and refuses writes");
  });
});

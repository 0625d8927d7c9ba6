/**
 * The Redis event source, session store and task store opened by a `redis+sentinel://` URL
 * against a real master, its replica and three sentinels on loopback: they follow a failover
 * (the master SIGKILLed, the replica promoted) and go on serving what was written before it
 * and what is written after. The stores acknowledge no write a failover could lose: not while
 * the replica is cut off or just killed, not through a switchover, and they go on while an old
 * master comes back.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { connectRedisEventSource } from "../../../../templates/event-sources/redis/redis-event-source.js";
import { connectRedisSessionStore } from "../../../../templates/event-sources/redis/redis-session-store.js";
import { connectRedisTaskStore } from "../../../../templates/event-sources/redis/redis-task-store.js";
import { eventually } from "../../../support/eventually.js";
import { startRedisSentinelSet, type RedisSentinelSet } from "../../../support/redis-sentinel.js";

const KEEPING = { idleMs: 60_000, maxSilentMs: 60_000, maxEvents: 8, maxBytes: 4096 };

describe("the Redis modules behind sentinels", { timeout: 120_000 }, () => {
  const suite = sentinelSuite();
  const opened = suite.opened;

  test("the stores and the event source follow a failover to the promoted replica", async () => {
    const sessions = opened(await connectRedisSessionStore({ url: suite.sentinels.url }));
    const tasks = opened(await connectRedisTaskStore<{ taskId: string; expiresAt: number; status?: string }>({ url: suite.sentinels.url }));
    const publisher = opened(await connectRedisEventSource({ url: suite.sentinels.url, log: () => {} }));
    const subscriber = opened(await connectRedisEventSource({ url: suite.sentinels.url, log: () => {} }));
    const heard: number[] = [];
    subscriber.subscribe("changes", (payload) => heard.push((payload as { n: number }).n));
    await subscriber.whenSubscribed();

    const expiresAt = Date.now() + 60_000;
    await sessions.create({ id: "before" }, KEEPING);
    assert.equal(await sessions.append("before", '{"n":1}', KEEPING), 1);
    await tasks.create({ taskId: "before", expiresAt, status: "working" });
    await publisher.publish("changes", { n: 1 });
    assert.ok(await eventually(() => heard.includes(1)), "an event before the failover");
    assert.ok(await eventually(() => suite.sentinels.replicaCaughtUp()), "the replica holds every write");
    const other = opened(await connectRedisSessionStore({ url: suite.sentinels.url }));
    assert.equal((await other.claim(["before"])).size, 0, "the session's writer is found running through the sentinels' master");
    assert.equal(await other.append("before", '{"n":0}', KEEPING), false, "and another store's append is refused");

    const first = suite.sentinels.masterPort();
    const promoted = await suite.sentinels.failOver();
    assert.notEqual(promoted, first);

    // Each call is retried while the clients find the new master; then everything works on it.
    const works = async (attempt: () => Promise<boolean>) => eventually(() => attempt().catch(() => false), 30_000);
    assert.ok(await works(async () => (await sessions.load("before"))?.id === "before"), "a session from before is read");
    assert.ok(await works(async () => (await sessions.append("before", '{"n":2}', KEEPING)) === 2), "its window goes on");
    assert.ok(await works(async () => (await sessions.create({ id: "after" }, KEEPING), (await sessions.alive(["before", "after"])).size === 2)));
    assert.ok(await works(async () => (await tasks.get("before"))?.status === "working"), "a task from before is read");
    assert.ok(await works(async () => (await tasks.update("before", (task) => ({ ...task, status: "completed" })))?.status === "completed"));
    assert.ok(
      await works(async () => {
        await publisher.publish("changes", { n: 2 });
        return eventually(() => heard.includes(2), 1000);
      }),
      "an event after the failover reaches the subscriber",
    );
  });
});

describe("a write the master could not pass to a replica, behind sentinels", { timeout: 120_000 }, () => {
  const suite = sentinelSuite();
  const opened = suite.opened;

  test("a session or task write is acknowledged only once a replica holds it, so a failover loses nothing acknowledged", async () => {
    const sessions = opened(await connectRedisSessionStore({ url: suite.sentinels.url, commandTimeoutMs: 1000 }));
    const tasks = opened(
      await connectRedisTaskStore<{ taskId: string; expiresAt: number; status?: string }>({ url: suite.sentinels.url, commandTimeoutMs: 1000 }),
    );
    await sessions.create({ id: "s0" }, KEEPING);
    const master = suite.sentinels.masterPort()!;
    const replica = suite.sentinels.replicaPort()!;
    // The replica loses its link and cannot make it again (the master has no password to check).
    suite.sentinels.cli(replica, "config", "set", "masterauth", "not-the-password");
    suite.sentinels.cli(replica, "client", "kill", "type", "master");
    assert.ok(await eventually(() => suite.sentinels.cli(replica, "info", "replication").includes("master_link_status:down")), "the link is down");

    const acknowledged: string[] = [];
    const refused: string[] = [];
    const attempt = (what: string, write: () => Promise<unknown>) =>
      write().then(
        () => acknowledged.push(what),
        (error: { retryable?: boolean; message: string }) => {
          assert.equal(error.retryable, true, `${what} refused with a retryable error: ${error.message}`);
          refused.push(what);
        },
      );
    await attempt("session s1", () => sessions.create({ id: "s1" }, KEEPING));
    await attempt("event on s0", () => sessions.append("s0", '{"n":1}', KEEPING));
    await attempt("task t1", () => tasks.create({ taskId: "t1", expiresAt: Date.now() + 60_000, status: "working" }));
    assert.equal(suite.sentinels.masterPort(), master);
    assert.deepEqual(refused, ["session s1", "event on s0", "task t1"], "each write is refused while the replica, cut off, could still be promoted");

    await suite.sentinels.failOver();
    suite.sentinels.cli(replica, "config", "set", "masterauth", ""); // as it was, for when it is a replica again
    // Once the stores reach the promoted replica (s0 was written while the link was up), each acknowledged write is read once.
    assert.ok(await eventually(async () => (await sessions.load("s0").catch(() => undefined))?.id === "s0", 30_000), "the promoted replica serves");
    const still: Record<string, () => Promise<boolean>> = {
      "session s1": async () => (await sessions.load("s1"))?.id === "s1",
      "event on s0": async () => ((await sessions.after("s0", 0)) ?? []).length === 1,
      "task t1": async () => (await tasks.get("t1"))?.taskId === "t1",
    };
    const lost: string[] = [];
    for (const what of acknowledged) if (!(await still[what]!())) lost.push(what);
    assert.deepEqual(lost, [], `acknowledged ${acknowledged.join(", ") || "nothing"}, refused ${refused.join(", ") || "nothing"}; lost after the failover`);
  });

  test("writes go on while the old master, back, makes its first sync as a replica, and are then held by it too", async () => {
    const sessions = opened(await connectRedisSessionStore({ url: suite.sentinels.url, commandTimeoutMs: 1000 }));
    assert.ok(
      await eventually(
        async () =>
          await sessions.create({ id: "r" }, KEEPING).then(
            () => true,
            () => false,
          ),
        30_000,
      ),
      "the promoted master takes writes",
    );
    let writing = true;
    const refused: string[] = [];
    let acknowledged = 0;
    const writes = (async () => {
      for (let n = 0; writing && n < 5000; n++) {
        await sessions.create({ id: `r${n}` }, KEEPING).then(
          () => acknowledged++,
          (error: Error) => refused.push(error.message),
        );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    let restarted: number;
    try {
      restarted = await suite.sentinels.restartKilled();
    } finally {
      writing = false;
      await writes;
    }
    assert.deepEqual(refused, [], `${acknowledged} writes acknowledged while the old master came back`);
    await sessions.create({ id: "after-sync" }, KEEPING);
    assert.equal(suite.sentinels.cli(restarted, "exists", "mcp:legacy:s:{after-sync}").trim(), "1", "the old master holds a write acknowledged after its sync");
  });

  test("a failover with the master alive: writes and events follow the promoted one, and nothing acknowledged is missing there", async () => {
    const tasks = opened(await connectRedisTaskStore<{ taskId: string; expiresAt: number; status?: string }>({ url: suite.sentinels.url }));
    const publisher = opened(await connectRedisEventSource({ url: suite.sentinels.url, log: () => {} }));
    const subscriber = opened(await connectRedisEventSource({ url: suite.sentinels.url, log: () => {} }));
    const heard = new Set<number>();
    subscriber.subscribe("switch", (payload) => heard.add((payload as { n: number }).n));
    await subscriber.whenSubscribed();
    let writing = true;
    const created: string[] = [];
    const published: number[] = [];
    const writes = (async () => {
      for (let n = 0; writing && n < 5000; n++) {
        await tasks.create({ taskId: `w${n}`, expiresAt: Date.now() + 60_000, status: "working" }).then(
          () => created.push(`w${n}`),
          () => {},
        );
        await publisher.publish("switch", { n }).then(
          () => published.push(n),
          () => {},
        );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    let promoted: number;
    try {
      promoted = await suite.sentinels.switchOver();
      await new Promise((resolve) => setTimeout(resolve, 500)); // writes after the demoted one has synced
    } finally {
      writing = false;
      await writes;
    }
    const missing = created.filter((taskId) => suite.sentinels.cli(promoted, "exists", `mcp:tasks:task:{${taskId}}`).trim() !== "1");
    assert.deepEqual(missing, [], `${created.length} tasks acknowledged; missing on the promoted master`);
    assert.ok(
      await eventually(() => published.every((n) => heard.has(n)), 5000),
      `published ${published.length}, unheard ${published.filter((n) => !heard.has(n)).join(",")}`,
    );
    assert.ok(created.length > 0 && published.length > 0);
  });

  test("a replica killed: writes are refused until the sentinels could no longer promote it, then acknowledged by the master alone", async () => {
    const sessions = opened(await connectRedisSessionStore({ url: suite.sentinels.url, commandTimeoutMs: 1000 }));
    await sessions.create({ id: "k0" }, KEEPING);
    const killed = await suite.sentinels.killReplica();
    const refusal = await sessions.create({ id: "k1" }, KEEPING).then(
      () => undefined,
      (error: { retryable?: boolean; message: string }) => error,
    );
    assert.equal(refusal?.retryable, true, "a write just after the kill is refused, retryably, since the sentinels could still promote the replica");
    assert.match(refusal.message, /replica/);
    const acknowledged = await eventually(
      () =>
        sessions.create({ id: "k2" }, KEEPING).then(
          () => true,
          () => false,
        ),
      30_000,
    );
    assert.ok(acknowledged, "writes are acknowledged once the sentinels mark the replica down");
    await suite.sentinels.restartKilled();
    await sessions.create({ id: "k3" }, KEEPING);
    assert.ok(
      await eventually(() => suite.sentinels.cli(killed, "exists", "mcp:legacy:s:{k3}").trim() === "1"),
      "the replica, back, holds what is written next",
    );
  });
});

/** A sentinel set of its own for the suite that calls this, and `opened`, whose argument is closed after the suite. */
function sentinelSuite(): { sentinels: RedisSentinelSet; opened<T extends { close(): Promise<void> }>(thing: T): T } {
  const closing: Array<{ close(): Promise<void> }> = [];
  const suite = {
    sentinels: undefined as unknown as RedisSentinelSet,
    opened: <T extends { close(): Promise<void> }>(thing: T): T => (closing.push(thing), thing),
  };
  before(async () => {
    suite.sentinels = await startRedisSentinelSet();
  });
  after(async () => {
    for (const thing of closing) await thing.close().catch(() => {});
    await suite.sentinels?.stop();
  });
  return suite;
}

/**
 * The Redis event source, session store and task store opened by a `redis+sentinel://` URL
 * against a real master, its replica and three sentinels on loopback: they follow a failover
 * (the master SIGKILLed, the replica promoted) and go on serving what was written before it
 * and what is written after.
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
  let sentinels: RedisSentinelSet;
  const closing: Array<{ close(): Promise<void> }> = [];
  const opened = <T extends { close(): Promise<void> }>(thing: T): T => (closing.push(thing), thing);

  before(async () => {
    sentinels = await startRedisSentinelSet();
  });
  after(async () => {
    for (const thing of closing) await thing.close().catch(() => {});
    await sentinels?.stop();
  });

  test("the stores and the event source follow a failover to the promoted replica", async () => {
    const sessions = opened(await connectRedisSessionStore({ url: sentinels.url }));
    const tasks = opened(await connectRedisTaskStore<{ taskId: string; expiresAt: number; status?: string }>({ url: sentinels.url }));
    const publisher = opened(await connectRedisEventSource({ url: sentinels.url, log: () => {} }));
    const subscriber = opened(await connectRedisEventSource({ url: sentinels.url, log: () => {} }));
    const heard: number[] = [];
    subscriber.subscribe("changes", (payload) => heard.push((payload as { n: number }).n));
    await subscriber.whenSubscribed();

    const expiresAt = Date.now() + 60_000;
    await sessions.create({ id: "before" }, KEEPING);
    assert.equal(await sessions.append("before", '{"n":1}', KEEPING), 1);
    await tasks.create({ taskId: "before", expiresAt, status: "working" });
    await publisher.publish("changes", { n: 1 });
    assert.ok(await eventually(() => heard.includes(1)), "an event before the failover");
    assert.ok(await eventually(() => sentinels.replicaCaughtUp()), "the replica holds every write");
    const other = opened(await connectRedisSessionStore({ url: sentinels.url }));
    assert.equal((await other.claim(["before"])).size, 0, "the session's writer is found running through the sentinels' master");
    assert.equal(await other.append("before", '{"n":0}', KEEPING), false, "and another store's append is refused");

    const first = sentinels.masterPort();
    const promoted = await sentinels.failOver();
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

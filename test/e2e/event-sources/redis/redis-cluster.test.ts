/**
 * The Redis event source, session store and task store against a real Redis Cluster on
 * loopback (3 masters, 3 replicas), opened by a `redis+cluster://` URL: sessions and tasks
 * whose keys land on different masters are opened, changed, read and ended (each script and
 * transaction keeps to one hash slot), and events published through the cluster reach
 * every subscriber, whichever node its connection landed on.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { connectRedisEventSource, openRedisEventSource } from "../../../../templates/event-sources/redis/redis-event-source.js";
import { connectRedisSessionStore } from "../../../../templates/event-sources/redis/redis-session-store.js";
import { connectRedisTaskStore, TaskStoreFullError } from "../../../../templates/event-sources/redis/redis-task-store.js";
import { eventually } from "../../../support/eventually.js";
import { masterPortOf, startRedisCluster, type RedisCluster } from "../../../support/redis-cluster.js";

const SESSIONS = 24;
const TASKS = 24;
const KEEPING = { idleMs: 60_000, maxSilentMs: 60_000, maxEvents: 3, maxBytes: 4096 };

interface Task {
  taskId: string;
  expiresAt: number;
  status?: string;
  result?: string;
}

describe("the Redis modules against a Redis Cluster", { timeout: 120_000 }, () => {
  let cluster: RedisCluster;
  const closing: Array<{ close(): Promise<void> }> = [];
  const opened = <T extends { close(): Promise<void> }>(thing: T): T => (closing.push(thing), thing);

  before(async () => {
    cluster = await startRedisCluster();
  });
  after(async () => {
    for (const thing of closing) await thing.close().catch(() => {});
    await cluster?.stop();
  });

  test("a session's keys share one hash slot: sessions on every master open, change, replay, answer, expire and end", async () => {
    const first = opened(await connectRedisSessionStore({ url: cluster.url, commandTimeoutMs: 5000 }));
    const second = opened(await connectRedisSessionStore({ url: cluster.url, commandTimeoutMs: 5000 }));
    const ids = Array.from({ length: SESSIONS }, (_, index) => `cluster-session-${index}`);
    const masters = new Set(ids.map((id) => masterPortOf(cluster.ports[0]!, `mcp:legacy:s:{${id}}`)));
    assert.ok(masters.size >= 2, `the sessions' keys spread over ${masters.size} master(s)`);

    const saved = new Set<string>();
    second.watch((change) => void (change.type === "saved" && saved.add(change.record.id)));
    for (const id of ids) {
      await first.create({ id }, KEEPING);
      await first.save({ id, step: "saved" } as { id: string });
      assert.equal(await first.append(id, `{"n":1,"id":"${id}"}`, KEEPING), 1);
      assert.equal(await second.append(id, `{"n":2}`, KEEPING), false, "only the writer writes");
      assert.equal(await first.append(id, `{"n":2}`, KEEPING), 2);
      first.touch(id, true, KEEPING);
    }
    for (const id of ids) {
      assert.deepEqual(await second.load(id), { id, step: "saved" });
      assert.deepEqual(
        (await second.after(id, 0))?.map((event) => event.seq),
        [1, 2],
      );
      assert.equal(await second.latest(id), 2);
      assert.equal(await second.firstStream(id), true);
    }
    assert.equal((await second.alive([...ids, "never-opened"])).size, SESSIONS, "alive finds every session, on whichever master");
    assert.ok(await eventually(() => ids.every((id) => saved.has(id))), "every save was heard by the other store");

    // An answer reaches the store waiting for it, whichever master holds the session.
    const answers: unknown[] = [];
    for (const id of ids.slice(0, 6)) {
      const requestId = await first.nextRequestId(id);
      await first.awaitAnswer(id, requestId, 10_000, (response) => answers.push(response.id));
      assert.equal(await second.answer(id, { id: requestId }), true);
    }
    assert.ok(await eventually(() => answers.length === 6), "every answer reached the waiting store");

    for (const id of ids) await second.end(id);
    assert.equal((await first.alive(ids)).size, 0, "every session ended");

    const brief = { ...KEEPING, idleMs: 200 };
    const fleeting = ids.slice(0, 8).map((id) => `${id}-brief`);
    for (const id of fleeting) await first.create({ id }, brief);
    assert.ok(await eventually(async () => (await second.alive(fleeting)).size === 0), "idle sessions expired on every master");
  });

  test("a session's writer counts as running while it listens, through whichever node; once it stops, its sessions on every master are taken", async () => {
    const writer = opened(await connectRedisSessionStore({ url: cluster.url, commandTimeoutMs: 5000 }));
    const other = opened(await connectRedisSessionStore({ url: cluster.url, commandTimeoutMs: 5000 }));
    const ids = Array.from({ length: SESSIONS }, (_, index) => `written-${index}`);
    for (const id of ids) await writer.create({ id }, KEEPING);
    assert.equal((await other.claim(ids)).size, 0, "the writer runs: nothing is taken");
    await writer.close();
    assert.equal((await other.claim(ids)).size, SESSIONS, "the writer stopped: every session is taken");
    for (const id of ids) assert.equal(await other.append(id, "{}", KEEPING), 1);
    for (const id of ids) await other.end(id);
  });

  test("a task's keys share one hash slot: tasks on every master are created, updated, read, bounded and swept", async () => {
    const prefix = "mcp:tasks:cluster:";
    const first = opened(await connectRedisTaskStore<Task>({ url: cluster.url, prefix, maxTasks: TASKS, commandTimeoutMs: 5000 }));
    const second = opened(await connectRedisTaskStore<Task>({ url: cluster.url, prefix, maxTasks: TASKS, sweepMs: 100, commandTimeoutMs: 5000 }));
    const ids = Array.from({ length: TASKS }, (_, index) => `cluster-task-${index}`);
    const masters = new Set(ids.map((id) => masterPortOf(cluster.ports[0]!, `${prefix}task:{${id}}`)));
    assert.ok(masters.size >= 2, `the tasks' keys spread over ${masters.size} master(s)`);

    const heard = new Map<string, string | undefined>();
    second.watch((task) => heard.set(task.taskId, task.status));
    const expiresAt = Date.now() + 60_000;
    for (const taskId of ids) await first.create({ taskId, expiresAt, status: "working" });
    await assert.rejects(first.create({ taskId: "one-too-many", expiresAt, status: "working" }), TaskStoreFullError);
    for (const taskId of ids) {
      assert.equal((await second.get(taskId))?.status, "working");
      const done = await second.update(taskId, (task) => ({ ...task, status: "completed", result: `result of ${taskId}` }));
      assert.equal(done?.status, "completed");
    }
    for (const taskId of ids) assert.equal((await first.get(taskId))?.result, `result of ${taskId}`);
    assert.ok(await eventually(() => ids.every((taskId) => heard.get(taskId) === "completed")), "every change was heard");
    // Ended tasks left the count: as many can be created again.
    await first.create({ taskId: "after-the-rest", expiresAt, status: "working" });

    // A task whose process stops renewing its lease is failed by another process's sweep.
    const dying = opened(await connectRedisTaskStore<Task>({ url: cluster.url, prefix, leaseMs: 300, commandTimeoutMs: 5000 }));
    await dying.create({ taskId: "orphan", expiresAt, status: "working" });
    await dying.close();
    assert.ok(await eventually(async () => (await second.get("orphan"))?.status === "failed"), "the orphaned task was failed");
  });

  test("events published through a cluster reach every subscriber, whichever node it listens on", async () => {
    const publisher = opened(await connectRedisEventSource({ url: cluster.url }));
    const subscribers = [opened(await connectRedisEventSource({ url: cluster.url })), opened(await connectRedisEventSource({ url: cluster.url }))];
    const topics = Array.from({ length: 8 }, (_, index) => `topic-${index}`);
    const received = subscribers.map(() => [] as string[]);
    subscribers.forEach((subscriber, index) => {
      for (const topic of topics) subscriber.subscribe(topic, (payload) => received[index]!.push(`${topic}:${(payload as { n: number }).n}`));
    });
    for (const subscriber of subscribers) await subscriber.whenSubscribed();
    for (const topic of topics) await publisher.publish(topic, { n: 1 });
    const expected = topics.map((topic) => `${topic}:1`).sort();
    assert.ok(await eventually(() => received.every((events) => events.length >= topics.length)), "every subscriber heard every topic");
    for (const events of received) assert.deepEqual([...events].sort(), expected);
    assert.ok(publisher.ready && subscribers.every((subscriber) => subscriber.ready));
  });

  test("events on one topic are heard in the order they were published, by subscribers on every node, from every publisher", async () => {
    const publishers = [opened(await connectRedisEventSource({ url: cluster.url })), opened(await connectRedisEventSource({ url: cluster.url }))];
    const subscribers = [opened(await connectRedisEventSource({ url: cluster.url })), opened(await connectRedisEventSource({ url: cluster.url }))];
    const heard = subscribers.map(() => [] as string[]);
    subscribers.forEach((subscriber, index) => subscriber.subscribe("ordered", (payload) => heard[index]!.push((payload as { n: string }).n)));
    for (const subscriber of subscribers) await subscriber.whenSubscribed();
    // Sent without waiting for each other, as a burst of changes is: each publisher's own order must hold.
    const COUNT = 60;
    await Promise.all(publishers.flatMap((publisher, p) => Array.from({ length: COUNT }, (_, n) => publisher.publish("ordered", { n: `${p}:${n}` }))));
    assert.ok(await eventually(() => heard.every((events) => events.length >= 2 * COUNT)), `heard ${heard.map((events) => events.length).join(", ")}`);
    for (const [p] of publishers.entries()) {
      const sent = Array.from({ length: COUNT }, (_, n) => `${p}:${n}`);
      for (const events of heard)
        assert.deepEqual(
          events.filter((n) => n.startsWith(`${p}:`)),
          sent,
          `publisher ${p}'s events in order`,
        );
    }
    // Every subscriber heard the two publishers' events interleaved the same way.
    assert.deepEqual(heard[0], heard[1]);
  });

  test("a subscription made before the cluster connection is up (a server's handlers subscribe at start) is made once it is, and hears every event once", async () => {
    const logged: string[] = [];
    // As a server opens it: at once, connecting in the background, its handlers subscribing before it is connected.
    const subscriber = opened(openRedisEventSource({ url: cluster.url, log: (line) => logged.push(line) }));
    const heard: number[] = [];
    subscriber.subscribe("early", (payload) => heard.push((payload as { n: number }).n));
    const publisher = opened(await connectRedisEventSource({ url: cluster.url }));
    assert.ok(await eventually(() => subscriber.ready), "the subscriber connects");
    await subscriber.whenSubscribed();
    for (let n = 1; n <= 3; n++) await publisher.publish("early", { n });
    assert.ok(await eventually(() => heard.length >= 3), `heard ${heard.join(",")}; log: ${logged.join(" | ")}`);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a second delivery would arrive within this
    assert.deepEqual(heard, [1, 2, 3]);
    assert.deepEqual(
      logged.filter((line) => line.includes("could not subscribe")),
      [],
    );
  });
});

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connectRedisEventSource, RedisUnreachableError, type RedisEventSource } from "../../../../templates/event-sources/redis/redis-event-source.js";
import type { EventSource } from "../../../../packages/runtime/src/index.js";
import { eventually } from "../../../support/eventually.js";
import { startRedisServer, type RedisServer } from "../../../support/redis-server.js";
import { freePort } from "../../../support/ports.js";

/** Publishes until `received` holds: pub/sub keeps nothing for a subscriber not yet (re)subscribed. */
async function publishUntil(source: RedisEventSource, topic: string, payload: unknown, received: () => boolean) {
  for (let attempt = 0; attempt < 100 && !received(); attempt++) {
    await source.publish(topic, payload).catch(() => {});
    await eventually(received, 100);
  }
  return received();
}

describe("redis event source", { timeout: 60_000 }, () => {
  let redis: RedisServer;
  const sources: RedisEventSource[] = [];
  const logs: string[] = [];
  const open = async () => {
    const source = await connectRedisEventSource({ url: redis.url, maxBackoffMs: 200, log: (line) => logs.push(line) });
    sources.push(source);
    return source;
  };

  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    await Promise.all(sources.map((source) => source.close()));
    await redis.stop();
  });

  test("has the shape of the runtime's EventSource", async () => {
    type Topics = { tools: { n: number } };
    const redisSource = await connectRedisEventSource<Topics>({ url: redis.url, log: () => {} });
    sources.push(redisSource as RedisEventSource);
    const source: EventSource<Topics> = redisSource; // tsc checks the assignment
    let received = 0;
    source.subscribe("tools", (payload) => (received = payload.n));
    assert.ok(await publishUntil(redisSource as RedisEventSource, "tools", { n: 7 }, () => received === 7));
  });

  test("an event published by one process reaches subscribers in another, parsed", async () => {
    const [publisher, subscriber] = [await open(), await open()];
    const seen: unknown[] = [];
    subscriber.subscribe("tools", (payload, topic) => seen.push({ topic, payload }));
    const arrived = await publishUntil(publisher, "tools", { reason: "added" }, () => seen.length > 0);
    assert.ok(arrived, "no event arrived through Redis");
    assert.deepEqual(seen[0], { topic: "tools", payload: { reason: "added" } });
  });

  test("once whenSubscribed resolves, a single publish from another connection is delivered", async () => {
    const [publisher, subscriber] = [await open(), await open()];
    const seen: unknown[] = [];
    subscriber.subscribe("ready-a", (payload) => seen.push(payload));
    subscriber.subscribe("ready-b", (payload) => seen.push(payload));
    await subscriber.whenSubscribed();
    await publisher.publish("ready-a", 1);
    await publisher.publish("ready-b", 2);
    assert.ok(await eventually(() => seen.length === 2), `got ${JSON.stringify(seen)}`);
    assert.deepEqual(seen, [1, 2]);
  });

  test("an event without a payload arrives as null", async () => {
    const [publisher, subscriber] = [await open(), await open()];
    const seen: unknown[] = [];
    subscriber.subscribe("bare", (payload) => seen.push(payload));
    await subscriber.whenSubscribed();
    await publisher.publish("bare", undefined);
    assert.ok(await eventually(() => seen.length === 1));
    assert.equal(seen[0], null);
  });

  test("topics are separate and unsubscribe stops delivery", async () => {
    const [publisher, subscriber] = [await open(), await open()];
    const tools: unknown[] = [];
    const prompts: unknown[] = [];
    const stopTools = subscriber.subscribe("tools2", (payload) => tools.push(payload));
    subscriber.subscribe("prompts2", (payload) => prompts.push(payload));
    assert.ok(await publishUntil(publisher, "prompts2", "p", () => prompts.length > 0));
    assert.ok(await publishUntil(publisher, "tools2", "t", () => tools.length > 0));
    assert.ok(prompts.every((p) => p === "p") && tools.every((t) => t === "t"));
    stopTools();
    const toolsBefore = tools.length;
    // A later prompts event travels the same connection, so once it arrives a tools event
    // published before it would have arrived too.
    await publisher.publish("tools2", "late");
    const promptsBefore = prompts.length;
    await publisher.publish("prompts2", "marker");
    assert.ok(await eventually(() => prompts.length > promptsBefore));
    assert.equal(tools.length, toolsBefore);
  });

  test("one Redis message is parsed once and given to every local listener", async () => {
    const [publisher, subscriber] = [await open(), await open()];
    const payloads: unknown[] = [];
    subscriber.subscribe("fan", (payload) => payloads.push(payload));
    subscriber.subscribe("fan", (payload) => payloads.push(payload));
    assert.ok(await publishUntil(publisher, "fan", { x: 1 }, () => payloads.length >= 2));
    assert.equal(payloads[0], payloads[1], "both listeners got the same parsed object");
  });

  test("killing and restarting Redis keeps subscriptions and delivery resumes", async () => {
    const [publisher, subscriber] = [await open(), await open()];
    const seen: unknown[] = [];
    subscriber.subscribe("outage", (payload) => seen.push(payload));
    assert.ok(await publishUntil(publisher, "outage", "before", () => seen.includes("before")));

    await redis.kill();
    try {
      assert.ok(await eventually(() => !publisher.ready && !subscriber.ready), "clients noticed the outage");
      await assert.rejects(publisher.publish("outage", "during"), RedisUnreachableError);
    } finally {
      await redis.restart(); // the later tests need the broker, whatever happened here
    }
    assert.ok(await eventually(() => publisher.ready && subscriber.ready, 20_000), "clients reconnected");
    assert.ok(await publishUntil(publisher, "outage", "after", () => seen.includes("after")), "delivery resumed");
    assert.ok(
      logs.some((line) => line.includes("reconnecting with backoff")),
      logs.join("\n"),
    );
    assert.ok(
      logs.some((line) => line.includes("reconnected to")),
      logs.join("\n"),
    );
  });

  test("a subscription made during an outage does not wait for Redis and receives events once it is back", async () => {
    const [publisher, subscriber] = [await open(), await open()];
    await redis.kill();
    const seen: unknown[] = [];
    try {
      assert.ok(await eventually(() => !subscriber.ready), "the subscriber noticed the outage");
      subscriber.subscribe("late", (payload) => seen.push(payload));
      const settled = await Promise.race([
        subscriber.whenSubscribed().then(() => "resolved"),
        new Promise((resolve) => setTimeout(resolve, 5_000, "still waiting").unref()),
      ]);
      assert.equal(settled, "resolved");
    } finally {
      await redis.restart();
    }
    assert.ok(await eventually(() => publisher.ready && subscriber.ready, 20_000), "both reconnected");
    assert.ok(await publishUntil(publisher, "late", "back", () => seen.includes("back")), "the late subscription works");
  });

  test("a subscription is told once its subscriber is back after a restart, and keeps delivering", async () => {
    const [publisher, subscriber] = [await open(), await open()];
    const seen: unknown[] = [];
    let resumed = 0;
    subscriber.subscribe("gap", (payload) => seen.push(payload), () => resumed++);
    assert.ok(await publishUntil(publisher, "gap", "before", () => seen.includes("before")));
    await redis.kill();
    try {
      assert.ok(await eventually(() => !subscriber.ready), "the subscriber noticed the outage");
      assert.equal(resumed, 0, "not told while Redis is away");
    } finally {
      await redis.restart();
    }
    assert.ok(await eventually(() => resumed === 1, 20_000), "told once it is back");
    assert.ok(await publishUntil(publisher, "gap", "after", () => seen.includes("after")), "the same subscription delivers");
  });

  test("a Redis that stops answering: not ready, publish fails naming the wait, logged; ready again once it answers", async () => {
    const source = await connectRedisEventSource({ url: redis.url, commandTimeoutMs: 500, probeEveryMs: 100, probeTimeoutMs: 200, log: (line) => logs.push(line) });
    sources.push(source);
    redis.freeze();
    try {
      const publishing = source.publish("silent", "x"); // sent before the probe noticed: bounded by the command timeout
      await assert.rejects(publishing, (error: Error) => error instanceof RedisUnreachableError && /did not answer/.test(error.message));
      assert.ok(await eventually(() => !source.ready, 10_000), "not ready while Redis does not answer");
      await assert.rejects(source.publish("silent", "y"), RedisUnreachableError);
      assert.ok(logs.some((line) => /did not answer/.test(line)), logs.join("\n"));
    } finally {
      redis.thaw();
    }
    assert.ok(await eventually(() => source.ready, 10_000), "ready again");
    await source.publish("silent", "z");
  });

  test("a message that is not JSON is dropped with a log line", async () => {
    const [publisher, subscriber] = [await open(), await open()];
    const seen: unknown[] = [];
    subscriber.subscribe("raw", (payload) => seen.push(payload));
    // Bypass the source's JSON encoding the way a foreign publisher would.
    const { createClient } = await import("redis");
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      for (let attempt = 0; attempt < 50 && !logs.some((l) => l.includes("not JSON")); attempt++) {
        await raw.publish("mcp:events:raw", "{oops");
        await eventually(() => logs.some((l) => l.includes("not JSON")), 100);
      }
    } finally {
      await raw.close();
    }
    assert.ok(logs.some((line) => line.includes('dropped a message on "mcp:events:raw" that is not JSON')));
    assert.ok(await publishUntil(publisher, "raw", "fine", () => seen.length > 0), "the stream still works");
    assert.deepEqual(
      seen.filter((p) => p !== "fine"),
      [],
    );
  });
});

test("starting with Redis down fails with an error naming the URL and the fix", { timeout: 20_000 }, async () => {
  const port = await freePort(); // nothing listens there
  const started = connectRedisEventSource({ url: `redis://127.0.0.1:${port}`, startTimeoutMs: 500, log: () => {} });
  await assert.rejects(started, (error: unknown) => {
    assert.ok(error instanceof RedisUnreachableError);
    assert.match(error.message, new RegExp(`cannot reach Redis at redis://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED, \\d+ attempts`));
    assert.match(error.message, /set REDIS_URL/);
    return true;
  });
});

test("a REDIS_URL that is not a Redis URL is refused before connecting", async () => {
  await assert.rejects(connectRedisEventSource({ url: "http://example.com" }), /is not a Redis URL; use the form redis:\/\//);
});

test("credentials in the URL never appear in the error", { timeout: 20_000 }, async () => {
  const port = await freePort();
  const started = connectRedisEventSource({ url: `redis://user:s3cret@127.0.0.1:${port}`, startTimeoutMs: 200, log: () => {} });
  await assert.rejects(started, (error: unknown) => !String((error as Error).message).includes("s3cret"));
});

/**
 * How the Redis modules tell a Redis that does not answer from one that is busy, against a
 * real redis-server: a PING queued behind slow commands on its connection is late, yet Redis
 * answers those commands meanwhile; a frozen Redis answers nothing.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createClient } from "redis";
import { AnswerWatch } from "../../../../templates/event-sources/redis/redis-connection.js";
import { startRedisServer, type RedisServer } from "../../../support/redis-server.js";

/**
 * Keeps Redis busy for ARGV[1] microseconds. ARGV[2] is padding: Redis runs every command it
 * has read whole before it writes their replies, so a command of over 16 KB (what it reads at
 * once) is answered before the next is run, as a long run of commands is, a chunk at a time.
 */
const BUSY = `
local started = redis.call('TIME')
local now = started
repeat now = redis.call('TIME') until (now[1] - started[1]) * 1000000 + (now[2] - started[2]) >= tonumber(ARGV[1])
return 1`;
/** The probe's wait: long enough that Redis, even on a loaded machine, answers the first queued command within it. */
const PROBE_MS = 400;

describe("AnswerWatch", { timeout: 60_000 }, () => {
  let redis: RedisServer;
  let client: ReturnType<typeof createClient>;
  before(async () => {
    redis = await startRedisServer();
    client = createClient({ url: redis.url });
    client.on("error", () => {});
    await client.connect();
  });
  after(async () => {
    client.destroy();
    await redis?.stop();
  });

  test("a PING late behind commands Redis keeps answering counts as answered", async () => {
    const watch = new AnswerWatch();
    // 60 commands of 20 ms each: the PING sent after them waits about 1.2 s, three times the probe's wait.
    const padding = "x".repeat(20_000);
    const queued = Array.from({ length: 60 }, () => watch.track(client.eval(BUSY, { arguments: ["20000", padding] })));
    const sent = performance.now();
    let pingAnsweredAfter = 0;
    const answers = await watch.answers(PROBE_MS, () => client.ping().finally(() => (pingAnsweredAfter = performance.now() - sent)));
    await Promise.all(queued);
    await client.ping();
    assert.ok(pingAnsweredAfter > PROBE_MS, `the PING itself was late (${Math.round(pingAnsweredAfter)} ms)`);
    assert.equal(answers, true, "Redis answered the commands before it, so it answers");
  });

  test("a frozen Redis does not answer, and answers again once thawed", async () => {
    const watch = new AnswerWatch();
    await watch.track(client.ping());
    redis.freeze();
    try {
      assert.equal(await watch.answers(PROBE_MS, () => client.ping()), false);
    } finally {
      redis.thaw();
    }
    assert.equal(await watch.answers(5_000, () => client.ping()), true);
  });
});

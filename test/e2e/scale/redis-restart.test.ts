/**
 * Three replicas behind the README's HAProxy recipe and one redis-server, restarted under open
 * 2025-11-25 sessions (their GET streams through the balancer) and 2026-07-28 listen streams:
 * first with no persistence (the broker comes back empty), then with an append-only file (it
 * comes back with what it held). Every session and every stream opened before each restart
 * hears every change published once Redis is back, without being opened again.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { createClient } from "redis";
import { eventually } from "../../support/eventually.js";
import { haproxyMissing, type Balancer } from "../../support/haproxy.js";
import { startRedisServer, type RedisServer } from "../../support/redis-server.js";
import { connectHttpClient } from "./fanout-process.js";
import { legacyClients, type LegacyClient } from "./replicas-legacy.js";
import { startRecipeBalancer, startReplicas, type Replicas } from "./replicas.js";
import { isWhole, type ScaffoldedProject, scaffoldProject } from "./scaffolded.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Changes published once Redis is back, each of which every session and stream must hear. */
const CHANGES = 3;
/** Time for streams to settle (sessions just opened, or resynchronised after a restart). */
const SETTLE_MS = 2000;

/** A 2026-07-28 listen stream on one replica: the list changes it heard, and whether it ended. */
interface OpenListen {
  readonly name: string;
  heard: number;
  ended: boolean;
}

async function listenOn(url: string, name: string): Promise<{ client: Client; listen: OpenListen }> {
  const client = await connectHttpClient(url, name);
  const listen: OpenListen = { name, heard: 0, ended: false };
  client.setNotificationHandler("notifications/tools/list_changed", () => void listen.heard++);
  const subscription = await client.listen({ toolsListChanged: true });
  void subscription.closed.then(() => (listen.ended = true));
  return { client, listen };
}

/** Turns on the append-only file of a running broker and waits until it holds everything. */
async function turnOnAppendOnly(url: string): Promise<void> {
  const admin = createClient({ url });
  await admin.connect();
  try {
    await admin.configSet("appendonly", "yes");
    const written = async () => /aof_enabled:1[\s\S]*aof_rewrite_in_progress:0/.test(await admin.info("persistence"));
    assert.ok(await eventually(written, 10_000), "the append-only file was written");
  } finally {
    await admin.close();
  }
}

describe("Redis restarted under open sessions and listen streams, three replicas behind HAProxy", { skip: haproxyMissing(), timeout: 300_000 }, () => {
  let redis: RedisServer;
  let project: ScaffoldedProject;
  let replicas: Replicas;
  let balancer: Balancer;
  const closers: Array<() => Promise<unknown>> = [];

  before(async () => {
    redis = await startRedisServer();
    project = scaffoldProject(["--transport", "http", "--event-source", "redis"]);
    replicas = await startReplicas(project, 3, { REDIS_URL: redis.url });
    balancer = await startRecipeBalancer(project, replicas.ports);
  });
  after(async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    await balancer?.stop();
    await replicas?.stop();
    project?.remove();
    await redis?.stop();
  });

  test("after a restart, with persistence off and then with AOF, every old session and listen stream hears each change published once Redis is back", async (t) => {
    const endpoint = `${balancer.url}/mcp`;
    const origins = replicas.ports.map((port) => `http://127.0.0.1:${port}`);
    const sessions: LegacyClient[] = await legacyClients(endpoint, 4, "old");
    for (const session of sessions) closers.push(() => session.close());
    const listens: OpenListen[] = [];
    for (const [i, origin] of origins.entries()) {
      const { client, listen } = await listenOn(`${origin}/mcp`, `listen-${i}`);
      closers.push(() => client.close());
      listens.push(listen);
    }
    const caller = await connectHttpClient(endpoint, "toggler");
    closers.push(() => caller.close());
    await sleep(SETTLE_MS);
    const counts = () => [...sessions.map((session) => session.heard()), ...listens.map((listen) => listen.heard)];
    const names = [...sessions.map((session) => session.name), ...listens.map((listen) => listen.name)];

    for (const appendOnly of [false, true]) {
      const phase = appendOnly ? "AOF" : "no persistence";
      if (appendOnly) await turnOnAppendOnly(redis.url);
      await redis.kill();
      await sleep(1000);
      await redis.restart({ appendOnly });
      const ready = async () => (await Promise.all(origins.map((origin) => isWhole(origin)))).every(Boolean);
      assert.ok(await eventually(ready, 30_000), `${phase}: every replica ready again`);
      await sleep(SETTLE_MS); // what the streams learn of the gap arrives first
      const before = counts();
      for (let change = 1; change <= CHANGES; change++) {
        const result = await caller.callTool({ name: "toggle_greet", arguments: {} });
        assert.equal(result.isError ?? false, false, `${phase}: change ${change} published: ${JSON.stringify(result.content)}`);
        await sleep(100);
      }
      const heardSince = () => counts().map((count, i) => count - before[i]!);
      await eventually(() => heardSince().every((count) => count >= CHANGES), 15_000);
      t.diagnostic(`${phase}: heard since Redis came back, of ${CHANGES}: ${names.map((name, i) => `${name} ${heardSince()[i]}`).join(", ")}`);
      assert.deepEqual(
        listens.filter((listen) => listen.ended).map((listen) => listen.name),
        [],
        `${phase}: no listen stream ended`,
      );
      const short = names.filter((_, i) => heardSince()[i]! < CHANGES);
      assert.deepEqual(short, [], `${phase}: every old session and stream heard all ${CHANGES} changes`);
    }
  });
});

/**
 * Three replicas of a scaffolded project (`--event-source redis`, whose README has the recipe,
 * its sessions in one real Redis) behind the HAProxy recipe its README documents
 * (`option forwardfor`), started with `TRUSTED_PROXIES=127.0.0.1` and a per-client share of
 * one 2025-11-25 session per replica (shares are counted where a session opens): clients from several loopback addresses each get their
 * own share on every replica, and one address is still held to it. Round-robin sends a
 * client's requests to r0, r1, r2 in turn, so each address fits three sessions, one a replica.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { haproxyMissing, type Balancer } from "../../support/haproxy.js";
import { startRedisServer, type RedisServer } from "../../support/redis-server.js";
import { initializeFrom } from "../../runtime/transports/http-helpers.js";
import { startRecipeBalancer, startReplicas, type Replicas } from "./replicas.js";
import { scaffoldProject, type ScaffoldedProject } from "./scaffolded.js";

const REPLICAS = 3;

describe("the README's HAProxy recipe with TRUSTED_PROXIES: per-client shares by the client's own address", { skip: haproxyMissing(), timeout: 240_000 }, () => {
  let redis: RedisServer | undefined;
  let project: ScaffoldedProject | undefined;
  let replicas: Replicas | undefined;
  let balancer: Balancer | undefined;

  before(async () => {
    redis = await startRedisServer();
    project = scaffoldProject(["--transport", "http", "--event-source", "redis"]);
    const env = { REDIS_URL: redis.url, TRUSTED_PROXIES: "127.0.0.1", MAX_SESSIONS_PER_CLIENT: "1" };
    replicas = await startReplicas(project, REPLICAS, env);
    balancer = await startRecipeBalancer(project, replicas.ports);
    for (let i = 0; i < REPLICAS; i++) await balancer.waitFor(i, true, 20_000);
  });

  after(async () => {
    await balancer?.stop();
    await replicas?.stop();
    project?.remove();
    await redis?.stop();
  });

  test("each of three client addresses opens one session on every replica; one more from any of them is refused", { timeout: 60_000 }, async () => {
    const url = `${balancer!.url}/mcp`;
    const addresses = ["127.0.0.2", "127.0.0.3", "127.0.0.4"];
    for (const address of addresses) {
      const statuses: number[] = [];
      for (let i = 0; i < REPLICAS; i++) statuses.push(await initializeFrom(url, address));
      assert.deepEqual(statuses, [200, 200, 200], `${address} has a share on every replica`);
    }
    for (const address of addresses) {
      const statuses: number[] = [];
      for (let i = 0; i < REPLICAS; i++) statuses.push(await initializeFrom(url, address));
      assert.deepEqual(statuses, [429, 429, 429], `${address} is at its share on every replica`);
    }
  });
});

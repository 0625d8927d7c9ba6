import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import type { Balancer } from "../../support/haproxy.js";
import { haproxyMissing } from "../../support/haproxy.js";
import { REDIS_TOPOLOGIES, startSharedRedis, type SharedRedis } from "../../support/shared-redis.js";
import { connectHttpClient } from "./fanout-process.js";
import { addMomentTool, startRecipeBalancer, startReplicas, type Replicas } from "./replicas.js";
import { scaffoldProject, type ScaffoldedProject } from "./scaffolded.js";

/** Calls per second the clients make together, and how many clients share them. */
const CALLS_PER_SECOND = 20;
const CALLERS = 8;
const LISTENERS = 3;

/** Tool calls at a steady rate through the balancer, counting what failed and why. */
class CallLoad {
  calls = 0;
  readonly failures: string[] = [];
  #running = true;
  readonly #loops: Array<Promise<void>>;

  constructor(clients: Client[]) {
    const periodMs = (1000 * clients.length) / CALLS_PER_SECOND;
    this.#loops = clients.map((client, i) => this.#loop(client, periodMs, (i * periodMs) / clients.length));
  }

  async #loop(client: Client, periodMs: number, offsetMs: number): Promise<void> {
    await sleep(offsetMs);
    while (this.#running) {
      const started = Date.now();
      this.calls++;
      try {
        // Alternately a call that publishes through Redis and one that is still running at any SIGTERM.
        const name = this.calls % 2 === 0 ? "toggle_greet" : "take_a_moment";
        const result = await client.callTool({ name, arguments: {} });
        if (result.isError) this.failures.push(`isError: ${JSON.stringify(result.content)}`);
      } catch (error) {
        this.failures.push(String(error));
      }
      await sleep(Math.max(0, periodMs - (Date.now() - started)));
    }
  }

  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#loops);
  }
}

/** A listen stream kept open through the balancer: listened to again whenever the server ends it. */
class KeptListen {
  graceful = 0;
  readonly failures: string[] = [];
  #running = true;
  readonly #done: Promise<void>;

  constructor(client: Client) {
    this.#done = this.#keep(client);
  }

  async #keep(client: Client): Promise<void> {
    while (this.#running) {
      try {
        const subscription = await client.listen({ toolsListChanged: true });
        this.#close = () => void subscription.close();
        const how = await subscription.closed;
        if (how === "graceful") this.graceful++;
        else if (how === "remote") this.failures.push("the stream ended without its complete result");
      } catch (error) {
        this.failures.push(`listen refused: ${String(error)}`);
        await sleep(100);
      }
    }
  }

  #close = () => {};

  async stop(): Promise<void> {
    this.#running = false;
    this.#close();
    await this.#done;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const topology of REDIS_TOPOLOGIES) {
  describe(
    `a rolling restart of three scaffolded replicas behind the README's HAProxy recipe (${topology})`,
    { skip: haproxyMissing(), timeout: 240_000 },
    () => {
      let redis: SharedRedis;
      let project: ScaffoldedProject;
      let replicas: Replicas | undefined;
      let balancer: Balancer | undefined;
      const clients: Client[] = [];

      before(async () => {
        redis = await startSharedRedis(topology);
        project = scaffoldProject(["--transport", "http", "--event-source", "redis"], addMomentTool);
      });
      after(async () => {
        for (const client of clients) await client.close().catch(() => {});
        await balancer?.stop();
        await replicas?.stop();
        project?.remove();
        await redis?.stop();
      });

      test("rolling restart: failed calls 0 under 20 calls/s, and no listen stream refused or cut", async (t) => {
        replicas = await startReplicas(project, 3, { REDIS_URL: redis.url });
        balancer = await startRecipeBalancer(project, replicas.ports);
        for (let i = 0; i < 3; i++) await balancer.waitFor(i, true, 20_000);
        const endpoint = `${balancer.url}/mcp`;
        for (let i = 0; i < CALLERS + LISTENERS; i++) clients.push(await connectHttpClient(endpoint, `client-${i}`));
        const load = new CallLoad(clients.slice(0, CALLERS));
        const listens = clients.slice(CALLERS).map((client) => new KeptListen(client));
        await sleep(1000);

        const exitCodes: Array<number | null> = [];
        const started = Date.now();
        for (let i = 0; i < 3; i++) {
          replicas.server(i).child.kill("SIGTERM");
          exitCodes.push(await replicas.server(i).exited);
          await replicas.restart(i);
          await balancer.waitFor(i, true, 20_000);
        }
        const restartMs = Date.now() - started;
        await sleep(1000);
        await load.stop();
        for (const listen of listens) await listen.stop();

        const relistens = listens.reduce((sum, listen) => sum + listen.graceful, 0);
        t.diagnostic(
          `${load.calls} calls in a ${restartMs} ms rolling restart (plus 2 s around it), failed ${load.failures.length}; listen streams ended gracefully and listened again: ${relistens}`,
        );
        assert.deepEqual(exitCodes, [0, 0, 0], "every replica drained and exited 0");
        assert.deepEqual(load.failures, [], "no call failed");
        assert.deepEqual(
          listens.flatMap((listen) => listen.failures),
          [],
          "no listen was refused or cut",
        );
        assert.ok(load.calls >= (CALLS_PER_SECOND * restartMs) / 1000 / 2, `the load kept its rate: ${load.calls} calls`);
        assert.ok(relistens >= LISTENERS, "the streams on stopping replicas ended with their complete result");
      });
    },
  );
}

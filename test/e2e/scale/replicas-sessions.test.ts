/**
 * Three replicas of a project made with `--event-source redis`, one real Redis, a real
 * HAProxy balancing round-robin with no stickiness, and the official clients of both
 * generations on 2025-11-25 sessions: any replica serves any Mcp-Session-Id (its requests,
 * its GET stream, the answers to its elicitations), a toggle_greet reaches every open stream
 * once and changes the tool list on every replica, and a replica killed while it writes and
 * carries GET streams leaves no client unaware of a change.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/client";
import { eventually } from "../../support/eventually.js";
import { haproxyMissing, startBalancer, type Balancer } from "../../support/haproxy.js";
import { REDIS_TOPOLOGIES, startSharedRedis, type SharedRedis } from "../../support/shared-redis.js";
import { connectHttpClient } from "./fanout-process.js";
import { legacyClients, v1Client, v2Client, type LegacyClient } from "./replicas-legacy.js";
import { TEST_STATE_KEY } from "./replicas.js";
import { scaffoldProject, servedUrl, startProject, type ScaffoldedProject, type StartedServer } from "./scaffolded.js";

const REPLICAS = 3;
const LEGACY = "2025-11-25";
/** Time for sessions just opened to have their list-change streams on every replica (they open after `initialized`). */
const SETTLE_MS = 1500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const topology of REDIS_TOPOLOGIES) {
  describe(
    `legacy sessions shared by three replicas behind round-robin HAProxy without stickiness (${topology})`,
    { skip: haproxyMissing(), timeout: 240_000 },
    () => {
      let redis: SharedRedis;
      let project: ScaffoldedProject;
      let balancer: Balancer;
      const replicas: StartedServer[] = [];
      const urls: string[] = [];
      const closers: Array<() => Promise<void>> = [];
      let endpoint: string;

      before(async () => {
        redis = await startSharedRedis(topology);
        project = scaffoldProject(["--transport", "http", "--event-source", "redis"]);
        for (let i = 0; i < REPLICAS; i++) replicas.push(startProject(project, [], { PORT: "0", REDIS_URL: redis.url, MCP_STATE_KEY: TEST_STATE_KEY }));
        for (const replica of replicas) urls.push(await servedUrl(replica));
        // A connection refused by a dead replica is tried on another (what any balancer in front of replicas is set up to do).
        balancer = await startBalancer({
          backends: urls.map((url) => Number(new URL(url).port)),
          backendLines: ["option redispatch 1", "retries 3", "retry-on conn-failure empty-response response-timeout"],
        });
        endpoint = `${balancer.url}/mcp`;
      });
      after(async () => {
        for (const close of closers.reverse()) await close().catch(() => {});
        await balancer?.stop();
        for (const replica of replicas) if (replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill("SIGKILL");
        await Promise.all(replicas.map((replica) => replica.exited));
        project?.remove();
        await redis?.stop();
      });

      const track = <T extends { close(): Promise<void> }>(client: T): T => {
        closers.push(() => client.close());
        return client;
      };

      test("any replica serves any session: 12 of 12 official clients (1.x and 2.x, 2025-11-25) connect, list, call, and answer an elicitation sent by another replica", async () => {
        const clients = (await legacyClients(endpoint, 12, "rr")).map(track);
        const outcomes = await Promise.allSettled(
          clients.map(async (client) => {
            assert.equal(client.version(), LEGACY, `${client.name} negotiated ${client.version()}`);
            assert.deepEqual(await client.toolNames(), ["ask_name", "toggle_greet"]);
            // ask_name's elicitation goes out on its POST's response; the answer is POSTed through the balancer, to any replica.
            assert.equal(await client.call("ask_name"), "Nice to meet you, Ada!");
          }),
        );
        const failed = outcomes.flatMap((outcome, i) => (outcome.status === "rejected" ? [`${clients[i]!.name}: ${String(outcome.reason)}`] : []));
        assert.deepEqual(failed, [], `${12 - failed.length} of 12 connected and called`);
      });

      test("a toggle on one replica reaches every open stream once, modern and legacy, on every replica, and tools/list on every replica shows it", async () => {
        const modern: Client[] = [];
        const modernHeard = urls.map(() => 0);
        for (const [i, url] of urls.entries()) {
          const client = track(await connectHttpClient(url, `listener-${i}`));
          client.setNotificationHandler("notifications/tools/list_changed", () => void modernHeard[i]!++);
          await client.listen({ toolsListChanged: true });
          modern.push(client);
        }
        // Sessions through the balancer (their GET streams land on any replica) and one opened on each replica directly.
        const legacy: LegacyClient[] = [
          ...(await legacyClients(endpoint, 6, "fan")),
          ...(await Promise.all(urls.map((url, i) => (i % 2 === 0 ? v1Client : v2Client)(url, `direct-${i}`)))),
        ].map(track);
        await sleep(SETTLE_MS);
        const heard = () => [...modernHeard, ...legacy.map((client) => client.heard())];
        const toolsEverywhere = async () => Promise.all(modern.map(async (client) => (await client.listTools()).tools.map((tool) => tool.name).sort()));

        for (const [round, expected] of [
          [1, ["ask_name", "greet", "toggle_greet"]],
          [2, ["ask_name", "toggle_greet"]],
        ] as const) {
          const caller = modern[round % REPLICAS]!;
          const result = await caller.callTool({ name: "toggle_greet", arguments: {} });
          assert.equal(result.isError ?? false, false, JSON.stringify(result.content));
          assert.ok(await eventually(() => heard().every((count) => count >= round), 15_000), `round ${round}: heard ${heard().join(",")}`);
          await sleep(500); // a second copy of the notification would arrive within this
          assert.deepEqual(
            heard(),
            heard().map(() => round),
            `round ${round}: each of ${heard().length} streams heard the change once`,
          );
          assert.deepEqual(
            await toolsEverywhere(),
            urls.map(() => [...expected]),
            `round ${round}: tools/list on every replica`,
          );
        }
      });

      // The victim opened these sessions, so it writes their events: after the kill, what was published before another replica
      // took them over is not in their windows. The taker tells each client the tool list may have changed (one list_changed),
      // which says all that the missed ones would have: read the list again.
      test("SIGKILL of the replica writing and carrying the legacy GET streams while events flow: the clients resume through the balancer, are told the list may have changed, and hear each change after", async () => {
        const victim = REPLICAS - 1;
        // Every session opened now, and its GET stream, is on the victim; the others come back once they are open.
        for (let i = 0; i < REPLICAS; i++) if (i !== victim) await balancer.command(`set server replicas/r${i} state maint`);
        let clients: LegacyClient[];
        try {
          clients = (await legacyClients(endpoint, 6, "resume")).map(track);
          await sleep(SETTLE_MS);
        } finally {
          for (let i = 0; i < REPLICAS; i++) if (i !== victim) await balancer.command(`set server replicas/r${i} state ready`);
        }
        const caller = track(await connectHttpClient(urls[0]!, "toggler"));
        const heardSince = (before: number[]) => clients.map((client, i) => client.heard() - before[i]!);
        const toggle = async () => {
          const result = await caller.callTool({ name: "toggle_greet", arguments: {} });
          assert.equal(result.isError ?? false, false, JSON.stringify(result.content));
          await sleep(100);
        };
        /** Toggles `count` times (`during` runs before the first), then waits for each client to hear at least `least`; what each heard. */
        const phase = async (count: number, least: number, during: () => Promise<void> = async () => {}) => {
          const before = clients.map((client) => client.heard());
          await during();
          for (let n = 0; n < count; n++) await toggle();
          await eventually(() => heardSince(before).every((heard) => heard >= least), 30_000);
          await sleep(1000); // a later copy of one would arrive within this
          return heardSince(before);
        };
        const beforeKill = await phase(7, 7);
        const kill = async () => {
          replicas[victim]!.child.kill("SIGKILL");
          await replicas[victim]!.exited;
        };
        const meanwhile = await phase(13, 1, kill);
        const after = await phase(3, 3);
        console.log(
          `# r${victim} killed; heard per client, 7 toggles before: ${beforeKill.join(",")}; 13 during: ${meanwhile.join(",")}; 3 after: ${after.join(",")}`,
        );
        assert.deepEqual(
          beforeKill,
          clients.map(() => 7),
          "before the kill, each change once",
        );
        assert.ok(
          meanwhile.every((heard) => heard >= 1 && heard <= 14),
          `while the sessions were taken over, each client heard at least one change and none more than once: ${meanwhile.join(",")}`,
        );
        assert.deepEqual(
          after,
          clients.map(() => 3),
          "once taken over, each change once",
        );
      });
    },
  );
}

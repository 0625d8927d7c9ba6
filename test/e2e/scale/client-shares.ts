/**
 * Per-client shares at scale, with the defaults a scaffolded project ships: three replicas of a
 * `--event-source redis` project (one real Redis) behind its README's HAProxy recipe, which
 * passes each client's address (X-Forwarded-For, or the PROXY protocol in the variant the
 * README documents beside it), started with `TRUSTED_PROXIES=127.0.0.1` and no MAX_* override.
 *
 * Twenty client addresses open `sessionsEach` legacy sessions and `listensEach` listen streams
 * each through the balancer (at most 100 and 25: 2,000 sessions and 500 streams). Round-robin
 * spreads each address's requests about evenly, so at most an address holds about 34 sessions
 * and 9 listens on each replica, well inside its shares there (100 sessions; 64 streams, its
 * sessions' list-change streams among them), and a replica about 667 sessions (of 1,000, the
 * last 50 kept for newcomers) and 834 streams (of 10,000). All are served, while one share per
 * replica for everyone behind the balancer would serve 300 sessions and 192 streams in all.
 * One more address then opens sessions one after another, each request going to the next
 * replica in turn: it fits its share on every replica, 100 × 3, and the 301st is refused with
 * 429, as is the next one on every replica. At the end every stream and session is closed, and
 * the address that was refused is served again once its sessions are gone.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { haproxyMissing, type Balancer } from "../../support/haproxy.js";
import { startRedisServer, type RedisServer } from "../../support/redis-server.js";
import { agentsFor, endSession, inBatches, openListen, openSession, tally, unanswered, type HeldListen } from "./address-clients.js";
import { startRecipeBalancer, startReplicas, type Replicas } from "./replicas.js";
import { scaffoldProject, type ScaffoldedProject } from "./scaffolded.js";

const REPLICAS = 3;
/** The scaffold's defaults (src/serve/limits.ts, the runtime's server-options.ts). */
const SESSIONS_PER_CLIENT = 100;
/** Requests in flight at once. */
const CONCURRENCY = 50;
const ACK = "notifications/subscriptions/acknowledged";

export interface ClientSharesSetup {
  /** Twenty loopback addresses the clients connect from. */
  readonly addresses: readonly string[];
  /** Sessions and listen streams each address opens. */
  readonly sessionsEach: number;
  readonly listensEach: number;
  /** A client of its own, opening nothing before its share is counted. */
  readonly greedyAddress: string;
  /** What every replica is started with beside REDIS_URL. */
  readonly env: Readonly<Record<string, string>>;
  /** Where the test asks each replica whether it is ready (default: the system's choice, 127.0.0.1). */
  readonly probeFrom?: string;
  /** The README's change to its recipe (given the recipe and the whole README), if the test runs a variant of it. */
  readonly variant?: (recipe: string, readme: string) => string;
}

/** The three tests above, under `title`, for one way of passing the client address. */
export function describeClientShares(title: string, setup: ClientSharesSetup): void {
  const { addresses, greedyAddress, sessionsEach, listensEach } = setup;
  describe(title, { skip: haproxyMissing(), timeout: 300_000 }, () => {
    let redis: RedisServer | undefined;
    let project: ScaffoldedProject | undefined;
    let replicas: Replicas | undefined;
    let balancer: Balancer | undefined;
    const agents = agentsFor([...addresses, greedyAddress]);
    const listens: HeldListen[] = [];
    const sessions: Array<{ address: string; id: string }> = [];

    before(async () => {
      redis = await startRedisServer();
      project = scaffoldProject(["--transport", "http", "--event-source", "redis"]);
      replicas = await startReplicas(project, REPLICAS, { REDIS_URL: redis.url, ...setup.env }, setup.probeFrom);
      balancer = await startRecipeBalancer(project, replicas.ports, setup.variant);
      for (let i = 0; i < REPLICAS; i++) await balancer.waitFor(i, true, 20_000);
    });

    after(async () => {
      for (const listen of listens) listen.close();
      for (const agent of agents.values()) agent.destroy();
      await balancer?.stop();
      await replicas?.stop();
      project?.remove();
      await redis?.stop();
    });

    const url = () => `${balancer!.url}/mcp`;
    /** What the exchanges that got no answer ran into, for a failed count. */
    const why = () => `unanswered: ${JSON.stringify(unanswered)}`;

    /** Opens one session from `address`, keeping its id to end it later; resolves with the status. */
    const openFrom = async (address: string): Promise<number> => {
      const opened = await openSession(url(), agents.get(address)!);
      if (opened.sessionId !== undefined) sessions.push({ address, id: opened.sessionId });
      return opened.status;
    };

    test(`${addresses.length} addresses open ${addresses.length * sessionsEach} sessions and ${addresses.length * listensEach} listen streams, all served`, { timeout: 150_000 }, async () => {
      // Interleaved, so that every address is opening throughout, as many clients at once do.
      const sessionTasks = Array.from({ length: addresses.length * sessionsEach }, (_, i) => () => openFrom(addresses[i % addresses.length]!));
      const sessionStatuses = await inBatches(sessionTasks, CONCURRENCY);
      assert.deepEqual(tally(sessionStatuses), { 200: addresses.length * sessionsEach }, why());

      const listenTasks = Array.from({ length: addresses.length * listensEach }, (_, i) => async () => {
        const listen = await openListen(url(), agents.get(addresses[i % addresses.length]!)!, `listen-${i}`);
        listens.push(listen);
        return listen;
      });
      const opened = await inBatches(listenTasks, CONCURRENCY);
      assert.deepEqual(tally(opened.map((listen) => listen.status)), { 200: addresses.length * listensEach }, why());
      assert.deepEqual(tally(opened.map((listen) => listen.first)), { [ACK]: addresses.length * listensEach });
    });

    test(`one address opening alone fits ${SESSIONS_PER_CLIENT} sessions on each replica and is refused (429) at the next`, { timeout: 60_000 }, async () => {
      // One at a time: round-robin then sends the n-th to replica n mod 3, so the share fills evenly.
      const statuses: number[] = [];
      const most = SESSIONS_PER_CLIENT * REPLICAS + REPLICAS;
      while (statuses.length < most && (statuses.length === 0 || statuses.at(-1) === 200)) statuses.push(await openFrom(greedyAddress));
      assert.equal(statuses.filter((status) => status === 200).length, SESSIONS_PER_CLIENT * REPLICAS, `statuses: ${JSON.stringify(tally(statuses))}`);
      assert.equal(statuses.at(-1), 429);
      const again: number[] = [];
      for (let i = 1; i < REPLICAS; i++) again.push(await openFrom(greedyAddress));
      assert.deepEqual(again, new Array(REPLICAS - 1).fill(429), "at its share on every replica");
    });

    test("every stream and session closes, and the address refused is served again once its sessions end", { timeout: 90_000 }, async () => {
      for (const listen of listens.splice(0)) listen.close();
      const ending = sessions.splice(0);
      const endStatuses = await inBatches(
        ending.map(({ address, id }) => () => endSession(url(), agents.get(address)!, id)),
        CONCURRENCY,
      );
      assert.deepEqual(tally(endStatuses), { 204: ending.length }, why());
      // A DELETE answered by another replica reaches the one holding the slot through Redis: bounded wait.
      const served: number[] = [];
      for (let attempt = 0; attempt < 100 && served.length < REPLICAS; attempt++) {
        const status = await openFrom(greedyAddress);
        if (status === 200) served.push(status);
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual(served, new Array(REPLICAS).fill(200));
      const last = sessions.splice(0);
      const lastStatuses = await Promise.all(last.map(({ address, id }) => endSession(url(), agents.get(address)!, id)));
      assert.deepEqual(tally(lastStatuses), { 204: last.length }, why());
    });
  });
}

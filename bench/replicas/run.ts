/**
 * What replicas sharing legacy (2025-11-25) sessions through Redis cost, per replica and in
 * Redis: three replica processes (replica.ts) on one real redis-server on loopback, started
 * here, fresh each round (fleet.ts). The bench is its own client (client.ts) and spreads
 * requests over the replicas itself. Per round:
 * - heap per session: `--sessions` sessions opened (initialize, initialized) on replica A only,
 *   each replica's heap after two full collections before and after; A serves them, B and C
 *   do not. Also Redis's `used_memory` per session, and per task (`--tasks` finished tasks
 *   made through A's `tools/call`);
 * - one list change: published on A, with no GET stream open, then with GET streams open on
 *   `--streams` of the sessions (spread over the three replicas): Redis commands until Redis
 *   is quiet again (`INFO commandstats` deltas, commands run inside scripts included; the
 *   bench's own INFO/CONFIG/PING left out) and Redis CPU time (`INFO cpu` deltas);
 * - `tools/call` latency: `--callers` callers, one call at a time each, spread over the three
 *   replicas, first while nothing else happens, then during a burst of `--burst` list changes
 *   (published back to back on A, until Redis is quiet again): p50 and p99.
 * Reports min and median over the rounds (over every sample for the per-change counts), with
 * the ratios that say how the cost scales: a non-serving replica's heap per session to the
 * serving one's, commands per change per session and per stream, burst p99 to quiet p99.
 *
 *   node --import tsx bench/replicas/run.ts [--rounds 3] [--sessions 2000] [--streams 200] [--changes 3] [--burst 20] [--callers 4] [--quiet-calls 400] [--tasks 500]
 *
 * Loopback only; every wait is bounded. Not part of the test suite.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { createClient } from "redis";
import { startRedisServer, type RedisServer } from "../../test/support/redis-server.js";
import { eachLimited, makeTask, openSession, openStream, retried, timedCall, WAIT_MS } from "./client.js";
import { refused, startReplica, type Replica } from "./fleet.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    sessions: { type: "string", default: "2000" },
    streams: { type: "string", default: "200" },
    changes: { type: "string", default: "3" },
    burst: { type: "string", default: "20" },
    callers: { type: "string", default: "4" },
    "quiet-calls": { type: "string", default: "400" },
    tasks: { type: "string", default: "500" },
  },
});
const ROUNDS = Number(values.rounds);
const SESSIONS = Number(values.sessions);
const STREAMS = Math.min(SESSIONS, Number(values.streams));
const CHANGES = Number(values.changes);
const BURST = Number(values.burst);
const CALLERS = Number(values.callers);
const QUIET_CALLS = Number(values["quiet-calls"]);
const TASKS = Number(values.tasks);
const REPLICAS = 3;
const OPEN_CONCURRENCY = 16;
/** Redis counts as quiet once its command count stays the same for this long (long enough for a busy replica's writes to start). */
const QUIET_MS = 500;

// ---- Redis ----

const adminClient = (url: string) => createClient({ url });
type Admin = ReturnType<typeof adminClient>;
const OWN_COMMANDS = new Set(["info", "config|resetstat", "config", "ping", "client|setinfo", "client", "hello", "flushall"]);

interface RedisCounters {
  readonly calls: number;
  readonly cpuSeconds: number;
  readonly byCommand: Map<string, number>;
}

async function counters(admin: Admin): Promise<RedisCounters> {
  const [stats, cpu] = await Promise.all([admin.info("commandstats"), admin.info("cpu")]);
  const byCommand = new Map<string, number>();
  for (const match of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (!OWN_COMMANDS.has(match[1]!)) byCommand.set(match[1]!, Number(match[2]));
  const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(cpu)?.[1] ?? 0);
  const calls = [...byCommand.values()].reduce((sum, count) => sum + count, 0);
  return { calls, cpuSeconds: seconds("used_cpu_sys") + seconds("used_cpu_user"), byCommand };
}

let replicas: readonly Replica[] = [];

/**
 * Resolves once every replica is settled (no session-store call in flight or lately begun) and,
 * with `countRedis`, Redis has run no command of theirs, for QUIET_MS; bounded by WAIT_MS.
 */
async function quiet(admin: Admin, countRedis = true): Promise<RedisCounters> {
  let last = await counters(admin);
  let since = performance.now();
  const started = since;
  while (performance.now() - since < QUIET_MS) {
    if (performance.now() - started > WAIT_MS) throw new Error(`Redis was not quiet within ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const settled = (await Promise.all(replicas.map((replica) => replica.settled()))).every(Boolean);
    const now = await counters(admin);
    if ((countRedis && now.calls !== last.calls) || !settled) since = performance.now();
    last = now;
  }
  return last;
}

async function usedMemory(admin: Admin): Promise<number> {
  return Number(/^used_memory:(\d+)/m.exec(await admin.info("memory"))?.[1]);
}

/** What one list change cost Redis: commands and CPU from before the publish until Redis is quiet again. */
async function oneChange(
  admin: Admin,
  publisher: Replica,
  delivered?: () => Promise<void>,
): Promise<{ calls: number; cpuMs: number; byCommand: Map<string, number> }> {
  const before = await quiet(admin);
  await publisher.fire();
  await delivered?.();
  const after = await quiet(admin);
  const byCommand = new Map([...after.byCommand].map(([name, count]) => [name, count - (before.byCommand.get(name) ?? 0)]));
  return { calls: after.calls - before.calls, cpuMs: (after.cpuSeconds - before.cpuSeconds) * 1000, byCommand };
}

// ---- the round ----

interface Samples {
  servingHeap: number[];
  otherHeap: number[];
  redisPerSession: number[];
  redisPerTask: number[];
  changeCalls: number[];
  changeCpuMs: number[];
  streamChangeCalls: number[];
  streamChangeCpuMs: number[];
  quietP50: number[];
  quietP99: number[];
  burstP50: number[];
  burstP99: number[];
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Calls from CALLERS callers, spread over the replicas, until `until` says stop; their round trips. */
async function callsUntil(replicas: readonly Replica[], sessions: readonly string[], until: (made: number) => boolean): Promise<number[]> {
  const times: number[] = [];
  const caller = async (index: number) => {
    for (let turn = index; !until(times.length); turn += CALLERS) {
      times.push(await timedCall(replicas[turn % REPLICAS]!.port, sessions[turn % sessions.length]!));
    }
  };
  await Promise.all(Array.from({ length: CALLERS }, (_, index) => caller(index)));
  return times;
}

async function round(redis: RedisServer, admin: Admin, samples: Samples): Promise<void> {
  await admin.flushAll();
  replicas = await Promise.all(Array.from({ length: REPLICAS }, () => startReplica(redis.url)));
  const closers: Array<() => void> = [];
  try {
    const a = replicas[0]!;
    await quiet(admin);
    const heapsBefore = await Promise.all(replicas.map((replica) => replica.heap()));
    const memoryBefore = await usedMemory(admin);
    const sessions = await eachLimited(Array.from({ length: SESSIONS }), OPEN_CONCURRENCY, () => openSession(a.port));
    await quiet(admin);
    const heapsAfter = await Promise.all(replicas.map((replica) => replica.heap()));
    const perSession = (index: number) => (heapsAfter[index]! - heapsBefore[index]!) / SESSIONS;
    samples.servingHeap.push(perSession(0));
    samples.otherHeap.push((perSession(1) + perSession(2)) / 2);
    samples.redisPerSession.push(((await usedMemory(admin)) - memoryBefore) / SESSIONS);
    // Before any list change: measured right after a burst of them, Redis's memory grew by 4.2 KB per task, without one by 0.5 KB.
    const memoryBeforeTasks = await usedMemory(admin);
    await eachLimited(Array.from({ length: TASKS }), OPEN_CONCURRENCY, (_, index) => makeTask(replicas[index % REPLICAS]!.port));
    await quiet(admin);
    samples.redisPerTask.push(((await usedMemory(admin)) - memoryBeforeTasks) / TASKS);

    for (let i = 0; i < CHANGES; i++) {
      const cost = await oneChange(admin, a);
      samples.changeCalls.push(cost.calls);
      samples.changeCpuMs.push(cost.cpuMs);
      if (i === 0) process.stderr.write(`  one change, no stream: ${describe(cost.byCommand)}\n`);
    }

    let heard = 0;
    const streamed = sessions.slice(0, STREAMS);
    closers.push(...(await eachLimited(streamed, OPEN_CONCURRENCY, (id, index) => openStream(replicas[index % REPLICAS]!.port, id, () => heard++))));
    await quiet(admin);
    for (let i = 0; i < CHANGES; i++) {
      const target = heard + STREAMS;
      const cost = await oneChange(admin, a, () => until(() => heard >= target, `${target - heard} of ${STREAMS} streams missed a change`));
      samples.streamChangeCalls.push(cost.calls);
      samples.streamChangeCpuMs.push(cost.cpuMs);
      if (i === 0) process.stderr.write(`  one change, ${STREAMS} streams: ${describe(cost.byCommand)}\n`);
    }

    const callSessions = sessions.slice(STREAMS, STREAMS + 8);
    const quietTimes = await callsUntil(replicas, callSessions, (made) => made >= QUIET_CALLS);
    samples.quietP50.push(percentile(quietTimes, 50));
    samples.quietP99.push(percentile(quietTimes, 99));
    let bursting = true;
    const burst = (async () => {
      for (let i = 0; i < BURST; i++) await a.fire();
      await quiet(admin, false); // the callers' own touches keep Redis busy: the replicas' writes decide
      bursting = false;
    })();
    const burstTimes = await callsUntil(replicas, callSessions, () => !bursting);
    await burst;
    samples.burstP50.push(percentile(burstTimes, 50));
    samples.burstP99.push(percentile(burstTimes, 99));
  } finally {
    closers.forEach((close) => close());
    for (const replica of replicas) replica.stop();
  }
}

async function until(done: () => boolean, failure: string): Promise<void> {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > WAIT_MS) throw new Error(failure);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function describe(byCommand: Map<string, number>): string {
  return [...byCommand]
    .filter(([, count]) => count > 0)
    .sort((x, y) => y[1] - x[1])
    .map(([name, count]) => `${name} ${count}`)
    .join(", ");
}

// ---- the report ----

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function report(samples: Samples, loadBefore: number[]): void {
  const cell = (values: readonly number[], digits: number) => `min ${Math.min(...values).toFixed(digits)} / median ${median(values).toFixed(digits)}`;
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
  console.log(`replica-cost bench: ${ROUNDS} rounds, ${REPLICAS} replicas, ${SESSIONS} sessions opened on one, ${STREAMS} GET streams, ${CALLERS} callers`);
  console.log(`load average before: ${load(loadBefore)}; after: ${load(loadavg())}`);
  console.log(
    `refused while a replica counted Redis as not answering (tried again): ${refused.publishes} publishes, ${retried.streams} GETs; POSTs sent again after a reset: ${retried.posts}`,
  );
  console.log(
    `heap per session [B]: serving replica ${cell(samples.servingHeap, 0)}; other replicas ${cell(samples.otherHeap, 0)} (${(median(samples.otherHeap) / median(samples.servingHeap)).toFixed(2)}x serving)`,
  );
  console.log(`Redis used_memory [B]: per session ${cell(samples.redisPerSession, 0)}; per finished task ${cell(samples.redisPerTask, 0)}`);
  const perChange = (label: string, calls: number[], cpu: number[], per: number, perLabel: string) =>
    console.log(
      `one list change, ${label}: Redis commands ${cell(calls, 0)} (${(median(calls) / per).toFixed(2)} per ${perLabel}); Redis CPU [ms] ${cell(cpu, 1)}`,
    );
  perChange("no GET stream", samples.changeCalls, samples.changeCpuMs, SESSIONS, "session");
  perChange(`${STREAMS} GET streams`, samples.streamChangeCalls, samples.streamChangeCpuMs, STREAMS, "stream");
  console.log(`tools/call [ms]: quiet p50 ${cell(samples.quietP50, 2)}, p99 ${cell(samples.quietP99, 2)}`);
  console.log(
    `tools/call [ms] during ${BURST} list changes: p50 ${cell(samples.burstP50, 2)}, p99 ${cell(samples.burstP99, 2)} (${(median(samples.burstP99) / median(samples.quietP99)).toFixed(2)}x quiet p99)`,
  );
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const redis = await startRedisServer();
  const admin = adminClient(redis.url);
  await admin.connect();
  const samples: Samples = {
    servingHeap: [],
    otherHeap: [],
    redisPerSession: [],
    redisPerTask: [],
    changeCalls: [],
    changeCpuMs: [],
    streamChangeCalls: [],
    streamChangeCpuMs: [],
    quietP50: [],
    quietP99: [],
    burstP50: [],
    burstP99: [],
  };
  try {
    for (let index = 1; index <= ROUNDS; index++) {
      await round(redis, admin, samples);
      process.stderr.write(`round ${index} done (load ${loadavg()[0]!.toFixed(2)})\n`);
    }
  } finally {
    await admin.close();
    await redis.stop();
  }
  report(samples, loadBefore);
}

await main();

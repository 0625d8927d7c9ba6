/**
 * Soak: many concurrent listen streams on one server process over loopback, then rounds
 * of notification bursts fanned out to all of them. Every stream must receive exactly
 * what its filter asked for, stamped with its own subscription id. Runs the runtime's
 * server and a bare node:http reference side by side and reports, for each: server RSS
 * per open stream, the time from a burst's trigger to its last delivery and the server's
 * CPU time for it (min/median over rounds, each with the load average), with the
 * runtime/bare ratios. CPU time is the steadier figure on a shared machine: wall time
 * there is mostly waiting for a core.
 *
 *   node --import tsx bench/soak/soak.ts [--streams 10000] [--rounds 5] [--warmup 1] [--repeat 2] [--redis]
 *     [--only bare|runtime|runtime+redis] [--busy]
 *
 * --busy keeps one core spinning (a child process in a busy loop) for the whole run, so the
 * figures show the server sharing the machine with other work (on two cores: one left).
 *
 * --redis adds a third contestant: the runtime publishing through a real redis-server on a
 * free loopback port (started and stopped here), i.e. the cross-process path.
 *
 * With --repeat, the servers take turns (bare, runtime, bare, runtime, ...) so that noise
 * from a busy machine falls on both; figures are over all rounds of all turns.
 *
 * Not part of the test suite. Needs `ulimit -n` above streams + a few hundred (it checks).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { waitForStdout } from "../../test/support/child-output.js";
import { startRedisServer, type RedisServer } from "../../test/support/redis-server.js";
import { cpuMs, rssBytes } from "./proc.js";
import { agent, callTool, openListenStream, type Filter, type ListenStream } from "./listen-stream.js";

const { values } = parseArgs({
  options: {
    streams: { type: "string", default: "10000" },
    rounds: { type: "string", default: "5" },
    warmup: { type: "string", default: "1" },
    repeat: { type: "string", default: "2" },
    only: { type: "string" },
    batch: { type: "string", default: "250" },
    redis: { type: "boolean", default: false },
    busy: { type: "boolean", default: false },
  },
});
const STREAMS = Number(values.streams);
const ROUNDS = Number(values.rounds);
/** Bursts fanned out first and left out of the figures: the first burst of each side pays for compiling its fan-out path. */
const WARMUP = Number(values.warmup);
const BATCH = Number(values.batch);
const RESOURCE_GROUPS = 10;
const ROUND_TIMEOUT_MS = 120_000;
// The runtime side is the fan-out app of the scale tests, on an in-process event source.
// "runtime+redis" publishes through a real redis-server and back (one process, --redis).
const SERVERS = {
  bare: "./bare-server.ts",
  runtime: "../../test/e2e/scale/servers/fanout-node.ts",
  "runtime+redis": "../../test/e2e/scale/servers/fanout-node.ts",
} as const;
type ServerName = keyof typeof SERVERS;
let redis: RedisServer | undefined;

function fdLimit(): number {
  const limits = readFileSync("/proc/self/limits", "utf8")
    .split("\n")
    .find((line) => line.startsWith("Max open files"));
  return Number(limits?.split(/\s+/)[3]);
}

const rssKb = (pid: number) => rssBytes(pid) / 1024;

const load = () => loadavg()[0]!;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Stream i asks for one kind: tools, prompts, or updates of one of ten resources, in blocks
 * of opening order (the first third tools, the next prompts, then a tenth of the rest per
 * resource). In blocks, a server that writes stream by stream and one that writes topic by
 * topic both deliver in opening order, so the soak's own client does the same work for
 * each. Interleaved (stream i by i % 3), the bare server made to write topic by topic took
 * 8% and 30% longer (two paired runs) to deliver the same burst: the delivery time measured
 * the order as well as the server.
 */
function filterFor(i: number): Filter {
  const third = Math.ceil(STREAMS / 3);
  if (i < third) return { toolsListChanged: true };
  if (i < 2 * third) return { promptsListChanged: true };
  const group = Math.floor(((i - 2 * third) * RESOURCE_GROUPS) / (STREAMS - 2 * third));
  return { resourceSubscriptions: [`file:///soak/${group}`] };
}

async function startServer(name: ServerName): Promise<{ child: ChildProcess; url: URL }> {
  const script = fileURLToPath(new URL(SERVERS[name], import.meta.url));
  // SOAK_SERVER_NODE_ARGS passes flags to the server's node, e.g. "--cpu-prof" to profile it.
  const nodeArgs = process.env.SOAK_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", script], {
    env: {
      ...process.env,
      PORT: "0",
      MAX_STREAMS_PER_CLIENT: String(STREAMS),
      ...(name === "runtime+redis" ? { EVENT_SOURCE: "redis", REDIS_URL: redis!.url } : {}),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [, listening] = await waitForStdout(child, /listening (\S+)/, 30_000, () => ` (${name} server)`);
  const url = new URL(listening!);
  return { child, url };
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(5);
  }
  return true;
}

interface Outcome {
  name: ServerName;
  /** Runtime only: SIGTERM with every stream open, time to exit, streams that got `complete`. */
  shutdown?: { ms: number; exitCode: number | null; completed: number };
  rssPerStreamKb: number;
  deliveryMs: number[];
  /** The server's CPU time per burst, trigger to last delivery (less sensitive to a busy machine than wall time). */
  cpuMs: number[];
  /** The soak's own (client) CPU time per burst. */
  clientCpuMs: number[];
  /** 1-minute load average at the end of each burst. */
  loads: number[];
  openMs: number;
  errors: string[];
}

async function soak(name: ServerName): Promise<Outcome> {
  const { child, url } = await startServer(name);
  const errors: string[] = [];
  const streams: ListenStream[] = [];
  try {
    await callTool(url, "fire", { resourceUris: [] }); // warm the tool path before the baseline
    await sleep(500);
    const baseKb = rssKb(child.pid!);
    const openStart = performance.now();
    for (let first = 0; first < STREAMS; first += BATCH) {
      const batch = [];
      for (let i = first; i < Math.min(STREAMS, first + BATCH); i++) batch.push(openListenStream(url, `soak-${i}`, filterFor(i)));
      await Promise.all(batch.map((stream) => stream.acked));
      streams.push(...batch);
    }
    const openMs = performance.now() - openStart;
    await sleep(1000);
    const openKb = rssKb(child.pid!);
    const resourceUris = Array.from({ length: RESOURCE_GROUPS }, (_, g) => `file:///soak/${g}`);
    const deliveryMs: number[] = [];
    const burstCpuMs: number[] = [];
    const loads: number[] = [];
    const clientCpuMs: number[] = [];
    for (let round = 1; round <= WARMUP + ROUNDS; round++) {
      const cpuBefore = cpuMs(child.pid!);
      const clientBefore = process.cpuUsage();
      const started = performance.now();
      await callTool(url, "fire", { resourceUris });
      const done = await waitFor(() => streams.every((s) => s.total >= round), ROUND_TIMEOUT_MS);
      burstCpuMs.push(cpuMs(child.pid!) - cpuBefore);
      const client = process.cpuUsage(clientBefore);
      clientCpuMs.push((client.user + client.system) / 1000);
      loads.push(load());
      if (!done) errors.push(`round ${round}: ${streams.filter((s) => s.total < round).length} streams short`);
      deliveryMs.push(Math.max(...streams.map((s) => s.lastArrival)) - started);
      if (round <= WARMUP) [deliveryMs, burstCpuMs, clientCpuMs, loads].forEach((figures) => figures.pop());
      await sleep(200); // lets a duplicate, if any were sent, arrive before counting
    }
    for (const stream of streams) {
      if (stream.violations.length > 0) errors.push(`${stream.id}: ${stream.violations.slice(0, 2).join("; ")}`);
      const counts = [...stream.received.values()];
      if (stream.received.size !== 1 || counts[0] !== WARMUP + ROUNDS) {
        errors.push(`${stream.id}: received ${JSON.stringify([...stream.received])}, expected ${WARMUP + ROUNDS} of one kind`);
      }
    }
    const shutdown = name === "bare" ? undefined : await gracefulShutdown(child, streams);
    return { name, rssPerStreamKb: (openKb - baseKb) / STREAMS, deliveryMs, cpuMs: burstCpuMs, clientCpuMs, loads, openMs, errors, shutdown };
  } finally {
    for (const stream of streams) stream.close();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    agent.destroy();
  }
}

/** SIGTERM with every stream open: how long until exit, and how many streams ended gracefully. */
async function gracefulShutdown(child: ChildProcess, streams: ListenStream[]) {
  const started = performance.now();
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  const exitCode = await exited;
  const ms = performance.now() - started;
  await waitFor(() => streams.every((s) => s.completed), 5_000);
  return { ms, exitCode, completed: streams.filter((s) => s.completed).length };
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A child process spinning on one core until killed (--busy). */
function startSpinner(): ChildProcess {
  return spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
}

async function main(): Promise<void> {
  const limit = fdLimit();
  if (limit < STREAMS + 500) {
    throw new Error(`open-file limit is ${limit}, need ${STREAMS + 500}; run \`ulimit -n ${STREAMS + 1000}\` first`);
  }
  const names = (values.only ? [values.only] : ["bare", "runtime", ...(values.redis ? ["runtime+redis"] : [])]) as ServerName[];
  if (names.includes("runtime+redis")) redis = await startRedisServer();
  const spinner = values.busy ? startSpinner() : undefined;
  const runs: Outcome[] = [];
  try {
    for (let turn = 0; turn < Number(values.repeat); turn++) for (const name of names) runs.push(await soak(name));
  } finally {
    spinner?.kill("SIGKILL");
  }
  console.log(
    `soak: ${STREAMS} listen streams, ${ROUNDS} bursts of ${STREAMS} notifications per run (after ${WARMUP} not counted), ` +
      `${values.repeat} runs per server taking turns, loopback, node ${process.version}${values.busy ? ", one core kept busy" : ""}`,
  );
  const summary = new Map<ServerName, { rss: number[]; delivery: number[]; cpu: number[]; loads: number[] }>();
  for (const run of runs) {
    const entry = summary.get(run.name) ?? { rss: [], delivery: [], cpu: [], loads: [] };
    entry.rss.push(run.rssPerStreamKb);
    entry.delivery.push(...run.deliveryMs);
    entry.cpu.push(...run.cpuMs);
    entry.loads.push(...run.loads);
    summary.set(run.name, entry);
    const verdict = run.errors.length === 0 ? "exact" : `${run.errors.length} ERRORS`;
    console.log(
      `  ${run.name.padEnd(13)} RSS/stream ${run.rssPerStreamKb.toFixed(1)} KB   delivery ` +
        `${run.deliveryMs.map((ms) => ms.toFixed(0)).join(", ")} ms   server CPU ${run.cpuMs.map((ms) => ms.toFixed(0)).join(", ")} ms   ` +
        `client CPU ${run.clientCpuMs.map((ms) => ms.toFixed(0)).join(", ")} ms   ` +
        `open all ${run.openMs.toFixed(0)} ms   load ${run.loads.map((l) => l.toFixed(1)).join(", ")}   ${verdict}`,
    );
    for (const error of run.errors.slice(0, 10)) console.log(`    ${error}`);
    if (run.shutdown) {
      const { ms, exitCode, completed } = run.shutdown;
      console.log(`    SIGTERM with ${STREAMS} open: exit ${exitCode} after ${ms.toFixed(0)} ms, ${completed} streams got their complete result`);
    }
  }
  for (const [name, { rss, delivery, cpu, loads }] of summary) {
    console.log(
      `${name.padEnd(13)} RSS/stream min ${Math.min(...rss).toFixed(1)} median ${median(rss).toFixed(1)} KB   ` +
        `burst delivery min ${Math.min(...delivery).toFixed(0)} median ${median(delivery).toFixed(0)} ms   ` +
        `server CPU per burst min ${Math.min(...cpu).toFixed(0)} median ${median(cpu).toFixed(0)} ms   ` +
        `load ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
    );
  }
  const bare = summary.get("bare");
  for (const name of ["runtime", "runtime+redis"] as const) {
    const contestant = summary.get(name);
    if (bare === undefined || contestant === undefined) continue;
    const ratio = (pick: (xs: number[]) => number, key: "delivery" | "cpu") => (pick(contestant[key]) / pick(bare[key])).toFixed(2);
    const min = (xs: number[]) => Math.min(...xs);
    console.log(
      `ratios ${name}/bare: RSS/stream ${(median(contestant.rss) / median(bare.rss)).toFixed(2)}x (median); ` +
        `delivery ${ratio(min, "delivery")}x min, ${ratio(median, "delivery")}x median; ` +
        `server CPU per burst ${ratio(min, "cpu")}x min, ${ratio(median, "cpu")}x median`,
    );
  }
  await redis?.stop();
  const failed = runs.some((run) => run.errors.length > 0 || (run.shutdown && (run.shutdown.exitCode !== 0 || run.shutdown.completed !== STREAMS)));
  const overBudget = runs.some((run) => run.name !== "bare" && run.rssPerStreamKb > 25);
  if (overBudget) console.log("a runtime run used more than the 25 KB per stream target");
  process.exitCode = failed || overBudget ? 1 : 0;
}

await main();

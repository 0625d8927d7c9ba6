/**
 * Streamable HTTP listen streams, side by side in one run: our runtime's node handler
 * (`runtime`), the same server through its fetch handler (`fetch` on @hono/node-server,
 * `fetch-bun` on Bun.serve under real Bun), the
 * official SDK's createMcpHandler (`sdk`), a bare node:http server writing one
 * pre-serialised frame per open response (`bare`), and the same floor as a fetch handler on
 * @hono/node-server (`fetch-bare`: what Node's Request and Response cost before any MCP work). Each server is its own process, fresh
 * for every round; the load (this process) is the same for all. Per round and server:
 * - ack latency: one stream at a time, request sent to ack frame received;
 * - notifications delivered per second with 1, 100 and 1000 open streams;
 * - RSS per open stream: server RSS (after GC) with 1000 streams open, minus without.
 * Reports min and median over rounds, the ratios to bare, and the fetch handler's to the node handler's
 * and to fetch-bare.
 * `--busy` keeps the other core busy with a spinning process for the whole run.
 *
 *   node --import tsx bench/http/run.ts [--rounds 3] [--acks 50] [--deliveries 100000] [--streams 1,100,1000] [--kinds runtime,fetch,fetch-bare,sdk,bare] [--busy]
 *
 * `BENCH_PROF=<dir>` writes each Node server's CPU profile into <dir> (as it exits).
 *
 * Loopback only; every wait is bounded. Not part of the test suite.
 */
import { fork, spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { deliveredAtLeast, deliveredSoFar, openStream, type Stream } from "./load.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    acks: { type: "string", default: "50" },
    deliveries: { type: "string", default: "100000" },
    streams: { type: "string", default: "1,100,1000" },
    kinds: { type: "string", default: "runtime,fetch,fetch-bare,fetch-bun,sdk,bare" },
    busy: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(values.rounds);
const ACK_SAMPLES = Number(values.acks);
const DELIVERIES = Number(values.deliveries);
const STREAM_COUNTS = values.streams.split(",").map(Number);
const ALL_KINDS = ["runtime", "fetch", "fetch-bare", "fetch-bun", "sdk", "bare"] as const;
type Kind = (typeof ALL_KINDS)[number];
// bare is always measured: every ratio is to it.
const KINDS = ALL_KINDS.filter((kind) => kind === "bare" || values.kinds.split(",").includes(kind));
const WAIT_MS = 60_000;

interface Server {
  readonly child: ChildProcess;
  readonly port: number;
  ask(command: object, answerKey: string): Promise<number>;
}

async function startServer(kind: Kind): Promise<Server> {
  // fetch-bun runs the same file under real Bun (installed from npm), which runs TypeScript itself.
  const underBun = kind === "fetch-bun";
  const child = fork(fileURLToPath(new URL("./servers.ts", import.meta.url)), [kind], {
    ...(underBun ? { execPath: fileURLToPath(new URL("../../node_modules/.bin/bun", import.meta.url)) } : {}),
    execArgv: underBun ? [] : ["--import", "tsx", "--expose-gc", ...(process.env.BENCH_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [])],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (message: { port: number }) => resolve(message.port));
    child.once("exit", (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  const ask = (command: object, answerKey: string) =>
    new Promise<number>((resolve) => {
      const onMessage = (message: Record<string, number>) => {
        if (answerKey in message) {
          child.off("message", onMessage);
          resolve(message[answerKey]!);
        }
      };
      child.on("message", onMessage);
      child.send(command);
    });
  return { child, port, ask };
}

let nextId = 1;

const WARM_UP_ACKS = 20;

async function ackLatencies(server: Server): Promise<number[]> {
  const samples: number[] = [];
  // The first listens of a fresh process run cold (JIT); every server gets the same warm-up.
  for (let i = -WARM_UP_ACKS; i < ACK_SAMPLES; i++) {
    const stream = openStream(server.port, nextId++);
    const latency = await stream.acked;
    if (i >= 0) samples.push(latency);
    stream.close();
  }
  return samples;
}

async function openMany(server: Server, count: number): Promise<Stream[]> {
  const streams: Stream[] = [];
  for (let i = 0; i < count; i++) streams.push(openStream(server.port, nextId++));
  await Promise.all(streams.map((stream) => stream.acked));
  return streams;
}

/** Notifications per second with `streams` open; NaN if they did not all arrive in time. */
async function throughput(kind: Kind, server: Server, streams: Stream[]): Promise<number> {
  const events = Math.max(1, Math.round(DELIVERIES / streams.length));
  const target = deliveredSoFar() + events * streams.length;
  const started = performance.now();
  // Bursts of at most 500 events: under the runtime's default mailbox bound (1000), so no
  // identical notifications are coalesced away and every server has the same work to do.
  const batch = Math.max(1, Math.min(500, Math.round(10_000 / streams.length)));
  const fired = server.ask({ fire: events, batch }, "fired");
  const complete = await deliveredAtLeast(target, WAIT_MS);
  if (!complete)
    process.stderr.write(
      `${kind}, ${streams.length} streams: ${target - deliveredSoFar()} of ${events * streams.length} notifications missing after ${WAIT_MS} ms\n`,
    );
  await fired;
  return complete ? (events * streams.length) / ((performance.now() - started) / 1000) : Number.NaN;
}

async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 200)); // closed sockets are reaped
}

type Results = Record<Kind, { ack: number[]; rate: Record<number, number[]>; rssPerStream: number[] }>;

/** A process spinning on one core for the whole run (`--busy`): the servers and the load share the other. */
function startBusy(): ChildProcess | undefined {
  if (!values.busy) return undefined;
  return spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
}

async function main(): Promise<void> {
  const busy = startBusy();
  const results = Object.fromEntries(
    KINDS.map((kind) => [kind, { ack: [], rate: Object.fromEntries(STREAM_COUNTS.map((count) => [count, []])), rssPerStream: [] }]),
  ) as unknown as Results;
  for (let round = 1; round <= ROUNDS; round++) {
    for (const kind of KINDS) {
      // A fresh server process per round: whatever one run leaves behind (a leak, a slow
      // teardown) cannot slow the next, and the rounds stay comparable.
      const server = await startServer(kind);
      try {
        await measure(kind, server, results[kind]);
      } finally {
        server.child.kill();
      }
      process.stderr.write(`round ${round} ${kind} done\n`);
    }
  }
  busy?.kill();
  report(results);
}

async function measure(kind: Kind, server: Server, into: Results[Kind]): Promise<void> {
  into.ack.push(...(await ackLatencies(server)));
  await settle();
  for (const count of STREAM_COUNTS) {
    const rssBefore = count === 1000 ? await server.ask({ rss: true }, "rss") : 0;
    const streams = await openMany(server, count);
    if (count === 1000) into.rssPerStream.push(((await server.ask({ rss: true }, "rss")) - rssBefore) / count);
    into.rate[count]!.push(await throughput(kind, server, streams));
    streams.forEach((stream) => stream.close());
    await settle();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function report(results: Results): void {
  const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "incomplete");
  const line = (label: string, pick: (kind: Kind) => number[], digits: number, unit: string) => {
    const bare = median(pick("bare"));
    const cells = KINDS.map((kind) => {
      const values = pick(kind);
      const against = (other: Kind) => (KINDS.includes(other) ? `, ${fmt(median(values) / median(pick(other)), 2)}x ${other}` : "");
      const toNode = kind === "fetch" || kind === "fetch-bun" ? against("runtime") + (kind === "fetch" ? against("fetch-bare") : "") : "";
      const ratio = kind === "bare" ? "" : ` (${fmt(median(values) / bare, 2)}x bare${toNode})`;
      return `${kind} min ${fmt(Math.min(...values), digits)} / median ${fmt(median(values), digits)}${ratio}`;
    });
    console.log(`${label} [${unit}]: ${cells.join("; ")}`);
  };
  console.log(`HTTP listen bench: ${ROUNDS} rounds, ${ACK_SAMPLES} ack samples per round, ~${DELIVERIES} deliveries per throughput run${values.busy ? ", the other core busy" : ""}`);
  if (ACK_SAMPLES > 0) line("ack latency", (kind) => results[kind].ack, 2, "ms");
  for (const count of STREAM_COUNTS) line(`throughput, ${count} streams`, (kind) => results[kind].rate[count]!, 0, "notifications/s");
  if (STREAM_COUNTS.includes(1000)) line("RSS per open stream", (kind) => results[kind].rssPerStream.map((bytes) => bytes / 1024), 1, "KB");
}

await main();

/**
 * Legacy (2025-11-25) Streamable HTTP sessions, side by side in one run: our runtime
 * (`runtime`), the official SDK v2 server (`sdk`) and a bare node:http reference (`bare`),
 * each in its own fresh process per round (servers.ts), with the same load (this process).
 * The three servers of a round run at once and every sample is taken in turn from each, so
 * a shared machine's changing load falls on all three alike:
 * - round trip: one session each, `tools/call` one at a time (after a warm-up), POST sent
 *   to answer read, the kinds taking turns call by call; every answer is checked, so a
 *   fast wrong one cannot count; also each server's CPU time per call (user + system, from
 *   the server process), which scheduling disturbs less than wall time;
 * - fan-out: `--sessions` sessions per server (initialize, initialized, GET stream each),
 *   then one list change announced to all of one server's sessions, timed from the command
 *   to the last GET stream receiving its `notifications/tools/list_changed`; the kinds take
 *   turns, `--fanouts` times each.
 * Reports min and median over every sample of every round, the ratios to the SDK and to
 * bare, and the load average before and after (the machine may be shared).
 *
 *   node --import tsx bench/legacy/run.ts [--rounds 3] [--calls 500] [--sessions 1000] [--fanouts 20] [--protocol-version 2025-11-25] [--redis] [--middleware] [--busy]
 *
 * --middleware adds `middleware`: the runtime with one pass-through `server.use` middleware,
 * reported against `runtime` (what the chain costs a request).
 * --redis adds `redis`: the runtime with its sessions in the Redis session store (a real
 * redis-server on loopback, started here), reported against `runtime` (sessions in process).
 * --busy keeps the other core busy (a spinning child process) while it runs.
 *
 * Loopback only; every wait is bounded. Not part of the test suite.
 */
import { fork, spawn, type ChildProcess } from "node:child_process";
import { Agent, request, type IncomingHttpHeaders } from "node:http";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Kind } from "./servers.js";
import { startRedisServer, type RedisServer } from "../../test/support/redis-server.js";
import { ARGUMENTS, TOOL_NAME } from "../tools-call/tool.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    calls: { type: "string", default: "500" },
    sessions: { type: "string", default: "1000" },
    fanouts: { type: "string", default: "20" },
    // An older initialize-era revision measures what trimming answers to its schema costs (legacy/codec.ts).
    "protocol-version": { type: "string", default: "2025-11-25" },
    redis: { type: "boolean", default: false },
    middleware: { type: "boolean", default: false },
    busy: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);
const SESSIONS = Number(values.sessions);
const FANOUTS = Number(values.fanouts);
const WARM_UP_CALLS = 100;
const WARM_UP_FANOUTS = 3;
const OPEN_CONCURRENCY = 16;
const WAIT_MS = 60_000;
const KINDS: readonly Kind[] = ["runtime", ...(values.redis ? ["redis" as const] : []), ...(values.middleware ? ["middleware" as const] : []), "sdk", "bare"];
let redis: RedisServer | undefined;
const VERSION = values["protocol-version"];
const postAgent = new Agent({ keepAlive: true, maxSockets: OPEN_CONCURRENCY });

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

function post(port: number, message: object, sessionId?: string): Promise<Answer> {
  const body = JSON.stringify(message);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (sessionId !== undefined) Object.assign(headers, { "mcp-session-id": sessionId, "mcp-protocol-version": VERSION });
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", agent: postAgent, headers, timeout: WAIT_MS }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk) => (text += chunk));
      res.once("end", () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    outgoing.once("timeout", () => outgoing.destroy(new Error("POST timed out")));
    outgoing.once("error", reject);
    outgoing.end(body);
  });
}

/** The JSON-RPC answer in a body that is either JSON or SSE. */
function answerOf(text: string): any {
  if (text.startsWith("{")) return JSON.parse(text);
  const data = text.split("\n").filter((line) => line.startsWith("data:") && line.length > 6);
  return JSON.parse(data[data.length - 1]!.slice(5));
}

let nextId = 1;

async function openSession(port: number): Promise<string> {
  const init = await post(port, {
    jsonrpc: "2.0",
    id: nextId++,
    method: "initialize",
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  });
  const id = init.headers["mcp-session-id"];
  if (typeof id !== "string" || answerOf(init.text).result?.protocolVersion !== VERSION)
    throw new Error(`initialize failed: ${init.status} ${init.text.slice(0, 200)}`);
  const initialized = await post(port, { jsonrpc: "2.0", method: "notifications/initialized" }, id);
  if (initialized.status !== 202) throw new Error(`initialized got ${initialized.status}`);
  return id;
}

/** One checked `tools/call` on a session; its round trip in ms. */
async function timedCall(port: number, session: string): Promise<number> {
  const started = performance.now();
  const answer = await post(port, { jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name: TOOL_NAME, arguments: ARGUMENTS } }, session);
  const elapsed = performance.now() - started;
  const result = answerOf(answer.text).result;
  // A revision without structured content (2024-11-05, 2025-03-26) gets the same answer as text only.
  const city = result?.structuredContent === undefined ? JSON.parse(result?.content?.[0]?.text ?? "{}").city : result.structuredContent.city;
  if (city !== "Oslo" || result.isError === true) throw new Error(`unexpected answer: ${answer.text.slice(0, 300)}`);
  return elapsed;
}

/** Round trips on every server, the servers taking turns call by call; each server's CPU per call counted over its own calls. */
async function roundTrips(servers: readonly Server[], results: Results): Promise<void> {
  const sessions = await Promise.all(servers.map((server) => openSession(server.port)));
  for (let i = 0; i < WARM_UP_CALLS; i++) for (const [index, server] of servers.entries()) await timedCall(server.port, sessions[index]!);
  const cpuBefore = await Promise.all(servers.map((server) => server.cpu()));
  for (let i = 0; i < CALLS; i++) {
    for (const [index, server] of servers.entries()) results[server.kind].roundTrip.push(await timedCall(server.port, sessions[index]!));
  }
  const cpuAfter = await Promise.all(servers.map((server) => server.cpu()));
  for (const [index, server] of servers.entries()) results[server.kind].cpuPerCall.push((cpuAfter[index]! - cpuBefore[index]!) / CALLS / 1000);
}

/** List changes received on every GET stream of this process, and waiters for a total. */
let delivered = 0;
const waiters = new Set<{ target: number; resolve: () => void }>();

function count(frames: number): void {
  delivered += frames;
  for (const waiter of waiters) if (delivered >= waiter.target) (waiters.delete(waiter), waiter.resolve());
}

function deliveredAtLeast(target: number): Promise<boolean> {
  if (delivered >= target) return Promise.resolve(true);
  return new Promise((resolve) => {
    const waiter = { target, resolve: () => (clearTimeout(timer), resolve(true)) };
    const timer = setTimeout(() => (waiters.delete(waiter), resolve(false)), WAIT_MS);
    waiters.add(waiter);
  });
}

/** A session's GET stream on its own socket; resolves once the response has begun. Frames are split, not parsed. */
function openStream(port: number, sessionId: string): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        agent: false,
        headers: { accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": VERSION },
      },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`GET got ${res.statusCode}`));
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
          let frames = 0;
          for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
            if (text.lastIndexOf("tools/list_changed", end) >= 0) frames++;
            text = text.slice(end + 2);
          }
          if (frames > 0) count(frames);
        });
        resolve(() => outgoing.destroy());
      },
    );
    outgoing.on("error", reject); // after the start, only our own destroy
    outgoing.end();
  });
}

/** Every server's sessions and GET streams; then fan-outs, the servers taking turns. */
async function fanOuts(servers: readonly Server[], results: Results): Promise<void> {
  const closers: Array<() => void> = [];
  try {
    for (const server of servers) closers.push(...(await openStreams(server)));
    for (let i = -WARM_UP_FANOUTS; i < FANOUTS; i++) {
      for (const server of servers) {
        const elapsed = await fanOut(server);
        if (i >= 0) results[server.kind].fanOut.push(elapsed);
      }
    }
  } finally {
    closers.forEach((close) => close());
  }
}

/** `SESSIONS` sessions on one server, each with its GET stream open; their closers. */
async function openStreams(server: Server): Promise<Array<() => void>> {
  const sessions: string[] = [];
  const open = async () => {
    while (sessions.length < SESSIONS) {
      const index = sessions.push("") - 1; // claimed before the await
      sessions[index] = await openSession(server.port);
    }
  };
  await Promise.all(Array.from({ length: OPEN_CONCURRENCY }, open));
  return Promise.all(sessions.map((id) => openStream(server.port, id)));
}

/** One list change to all of a server's sessions: ms from the command to the last stream receiving it. */
async function fanOut(server: Server): Promise<number> {
  const target = delivered + SESSIONS;
  const started = performance.now();
  server.fire();
  if (!(await deliveredAtLeast(target)))
    throw new Error(`${server.kind}: ${target - delivered} of ${SESSIONS} sessions missed a list change after ${WAIT_MS} ms`);
  return performance.now() - started;
}

interface Server {
  readonly kind: Kind;
  readonly child: ChildProcess;
  readonly port: number;
  fire(): void;
  /** The server process's CPU time so far, in µs. */
  cpu(): Promise<number>;
}

async function startServer(kind: Kind): Promise<Server> {
  const child = fork(fileURLToPath(new URL("./servers.ts", import.meta.url)), [kind], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, ...(redis === undefined ? {} : { REDIS_URL: redis.url }) },
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (message: { port: number }) => resolve(message.port));
    child.once("exit", (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  const cpu = () =>
    new Promise<number>((resolve) => {
      const onMessage = (message: { cpuMicros?: number }) => {
        if (message.cpuMicros === undefined) return;
        child.off("message", onMessage);
        resolve(message.cpuMicros);
      };
      child.on("message", onMessage);
      child.send({ cpu: true });
    });
  return { kind, child, port, fire: () => child.send({ fire: true }), cpu };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

type Results = Record<Kind, { roundTrip: number[]; cpuPerCall: number[]; fanOut: number[] }>;

function report(results: Results, loadBefore: number[]): void {
  const line = (label: string, pick: (kind: Kind) => number[], digits: number) => {
    const of = (kind: Kind) => ({ min: Math.min(...pick(kind)), median: median(pick(kind)) });
    const cells = KINDS.map((kind) => {
      const { min, median: mid } = of(kind);
      const ratios =
        kind === "bare"
          ? ""
          : ` (${(mid / of("bare").median).toFixed(2)}x bare${kind === "runtime" ? `, ${(mid / of("sdk").median).toFixed(2)}x sdk` : ""}${
              kind === "redis" || kind === "middleware" ? `, ${(mid / of("runtime").median).toFixed(3)}x runtime (min ${(min / of("runtime").min).toFixed(3)}x)` : ""
            })`;
      return `${kind} min ${min.toFixed(digits)} / median ${mid.toFixed(digits)}${ratios}`;
    });
    console.log(`${label} [ms]: ${cells.join("; ")}`);
  };
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
  console.log(`legacy HTTP bench: ${ROUNDS} rounds, ${CALLS} calls and ${FANOUTS} fan-outs to ${SESSIONS} sessions per round`);
  console.log(`load average before: ${load(loadBefore)}; after: ${load(loadavg())}${values.busy ? "; the other core kept busy" : ""}`);
  line("tools/call round trip", (kind) => results[kind].roundTrip, 3);
  line("server CPU per tools/call (one value per round)", (kind) => results[kind].cpuPerCall, 3);
  line(`list-changed fan-out to ${SESSIONS} GET streams`, (kind) => results[kind].fanOut, 1);
}

/** A child process spinning on one core for the whole run (--busy). */
function busyCore(): ChildProcess {
  return spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  if (values.redis) redis = await startRedisServer();
  const spinner = values.busy ? busyCore() : undefined;
  const results = Object.fromEntries(KINDS.map((kind) => [kind, { roundTrip: [], cpuPerCall: [], fanOut: [] }])) as unknown as Results;
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const servers: Server[] = [];
      try {
        for (const kind of KINDS) servers.push(await startServer(kind));
        await roundTrips(servers, results);
        await fanOuts(servers, results);
      } finally {
        for (const server of servers) server.child.kill();
      }
      process.stderr.write(`round ${round} done (load ${loadavg()[0]!.toFixed(2)})\n`);
    }
  } finally {
    postAgent.destroy();
    spinner?.kill();
    await redis?.stop();
  }
  report(results, loadBefore);
}

await main();

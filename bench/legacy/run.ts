/**
 * Legacy (2025-11-25) Streamable HTTP sessions, side by side in one run: our runtime
 * (`runtime`), the official SDK v2 server (`sdk`) and a bare node:http reference (`bare`),
 * each in its own fresh process per round (servers.ts), with the same load (this process):
 * - round trip: one session, `tools/call` one at a time (after a warm-up), POST sent to
 *   answer read; every answer is checked, so a fast wrong one cannot count; also the
 *   server's CPU time per call (user + system, from the server process), which a shared
 *   machine's scheduling disturbs less than wall time;
 * - fan-out: `--sessions` sessions (initialize, initialized, GET stream each), then one
 *   list change announced to all of them, timed from the command to the last GET stream
 *   receiving its `notifications/tools/list_changed`; repeated `--fanouts` times.
 * Reports min and median over every sample of every round, the ratios to the SDK and to
 * bare, and the load average before and after (the machine may be shared).
 *
 *   node --import tsx bench/legacy/run.ts [--rounds 3] [--calls 500] [--sessions 1000] [--fanouts 20]
 *
 * Loopback only; every wait is bounded. Not part of the test suite.
 */
import { fork, type ChildProcess } from "node:child_process";
import { Agent, request, type IncomingHttpHeaders } from "node:http";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Kind } from "./servers.js";
import { ARGUMENTS, TOOL_NAME } from "../tools-call/tool.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    calls: { type: "string", default: "500" },
    sessions: { type: "string", default: "1000" },
    fanouts: { type: "string", default: "20" },
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
const KINDS: readonly Kind[] = ["runtime", "sdk", "bare"];
const VERSION = "2025-11-25";
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

async function roundTrips(server: Server): Promise<{ samples: number[]; cpuPerCall: number }> {
  const { port } = server;
  const session = await openSession(port);
  const samples: number[] = [];
  let cpuBefore = 0;
  for (let i = -WARM_UP_CALLS; i < CALLS; i++) {
    if (i === 0) cpuBefore = await server.cpu();
    const started = performance.now();
    const answer = await post(port, { jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name: TOOL_NAME, arguments: ARGUMENTS } }, session);
    const elapsed = performance.now() - started;
    const result = answerOf(answer.text).result;
    if (result?.structuredContent?.city !== "Oslo" || result.isError === true) throw new Error(`unexpected answer: ${answer.text.slice(0, 300)}`);
    if (i >= 0) samples.push(elapsed);
  }
  return { samples, cpuPerCall: ((await server.cpu()) - cpuBefore) / CALLS / 1000 };
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

async function fanOuts(server: Server): Promise<number[]> {
  const sessions: string[] = [];
  const open = async () => {
    while (sessions.length < SESSIONS) {
      const index = sessions.push("") - 1; // claimed before the await
      sessions[index] = await openSession(server.port);
    }
  };
  await Promise.all(Array.from({ length: OPEN_CONCURRENCY }, open));
  const closers = await Promise.all(sessions.map((id) => openStream(server.port, id)));
  const samples: number[] = [];
  try {
    for (let i = -WARM_UP_FANOUTS; i < FANOUTS; i++) {
      const target = delivered + SESSIONS;
      const started = performance.now();
      server.fire();
      if (!(await deliveredAtLeast(target)))
        throw new Error(`${server.kind}: ${target - delivered} of ${SESSIONS} sessions missed a list change after ${WAIT_MS} ms`);
      if (i >= 0) samples.push(performance.now() - started);
    }
  } finally {
    closers.forEach((close) => close());
  }
  return samples;
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
        kind === "bare" ? "" : ` (${(mid / of("bare").median).toFixed(2)}x bare${kind === "runtime" ? `, ${(mid / of("sdk").median).toFixed(2)}x sdk` : ""})`;
      return `${kind} min ${min.toFixed(digits)} / median ${mid.toFixed(digits)}${ratios}`;
    });
    console.log(`${label} [ms]: ${cells.join("; ")}`);
  };
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
  console.log(`legacy HTTP bench: ${ROUNDS} rounds, ${CALLS} calls and ${FANOUTS} fan-outs to ${SESSIONS} sessions per round`);
  console.log(`load average before: ${load(loadBefore)}; after: ${load(loadavg())}`);
  line("tools/call round trip", (kind) => results[kind].roundTrip, 3);
  line("server CPU per tools/call (one value per round)", (kind) => results[kind].cpuPerCall, 3);
  line(`list-changed fan-out to ${SESSIONS} GET streams`, (kind) => results[kind].fanOut, 1);
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const results = Object.fromEntries(KINDS.map((kind) => [kind, { roundTrip: [], cpuPerCall: [], fanOut: [] }])) as unknown as Results;
  for (let round = 1; round <= ROUNDS; round++) {
    for (const kind of KINDS) {
      const server = await startServer(kind);
      try {
        const { samples, cpuPerCall } = await roundTrips(server);
        results[kind].roundTrip.push(...samples);
        results[kind].cpuPerCall.push(cpuPerCall);
        results[kind].fanOut.push(...(await fanOuts(server)));
      } finally {
        server.child.kill();
      }
      process.stderr.write(`round ${round} ${kind} done\n`);
    }
  }
  postAgent.destroy();
  report(results, loadBefore);
}

await main();

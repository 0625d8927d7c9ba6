/**
 * Slow-consumer soak: 10,000 listen streams on one runtime server (slow-server.ts, default
 * limits), of which 1,000 stop reading right after their ack, while numbered ticks are
 * fanned out to all of them for a minute. The stuck streams also watch a resource updated
 * with 128 KB once a second, so that they fill the kernel's socket buffers and then the
 * server's within the minute (ticks alone would take far longer on this scale). Prints the server's RSS over time with the
 * buffered-output budget, and checks:
 * - the server's RSS stays under the documented bound: its RSS with every stream open and
 *   idle, plus twice the buffered-output budget (the V8 heap keeps dead strings until a
 *   collection), plus 64 MB of slack for the fan-out's own garbage (--rss-slack-mb);
 * - every reading stream gets every tick, in order, stamped with its own id;
 * - every stuck stream ends by the documented policy: evicted (the server reports it), by
 *   the budget or after staying congested for maxStalledMs. A stuck stream whose bytes the
 *   kernel still takes (loopback socket buffers grow to several MB) holds nothing in the
 *   server and is not congested in its view: it is evicted only once the kernel stops
 *   taking, so with little data per stuck stream this check can fail while memory holds;
 * - the server keeps answering: a `stats` call each second, its latency printed.
 *
 *   node --import tsx bench/soak/slow-consumers.ts [--streams 10000] [--stuck 1000]
 *     [--seconds 60] [--rate 1] [--pad 100] [--bulk 131072] [--rss-slack-mb 64] [--server-heap-mb 384]
 *
 * The server runs with `--max-old-space-size` (--server-heap-mb): without a cap V8 lets
 * dead copies of large frames (each socket write flattens its own) pile up for a long
 * time on a machine with memory to spare; the cap makes it collect, and the budget is what
 * makes the live part fit under it.
 *
 * Not part of the test suite. Needs `ulimit -n` above streams + a few hundred.
 */
import { spawn } from "node:child_process";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { waitForStdout } from "../../test/support/child-output.js";
import { agent, callTool, PROTOCOL_VERSION } from "./listen-stream.js";

const { values } = parseArgs({
  options: {
    streams: { type: "string", default: "10000" },
    stuck: { type: "string", default: "1000" },
    seconds: { type: "string", default: "60" },
    rate: { type: "string", default: "1" },
    pad: { type: "string", default: "100" },
    bulk: { type: "string", default: String(128 * 1024) },
    "rss-slack-mb": { type: "string", default: "64" },
    "server-heap-mb": { type: "string", default: "384" },
  },
});
const STREAMS = Number(values.streams);
const STUCK = Number(values.stuck);
const SECONDS = Number(values.seconds);
const TICK_URI = "soak://ticks";
const BULK_URI = "soak://bulk";
const ACK = Buffer.from("notifications/subscriptions/acknowledged");
const SEQ = Buffer.from('"seq":');
const FRAME_END = Buffer.from("\n\n");
const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(line?.split(/\s+/)[1]) * 1024;
}

function listenBody(id: string, uris: string[]): string {
  const _meta = { "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION, "io.modelcontextprotocol/clientCapabilities": {} };
  return JSON.stringify({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: { _meta, notifications: { resourceSubscriptions: uris } } });
}

function listenHeaders(id: string, body: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL_VERSION,
    "mcp-method": "subscriptions/listen",
    "content-length": String(Buffer.byteLength(body)),
    "x-soak-client": id,
  };
}

/** A reading stream: checks each tick's number follows the last and carries its own id. */
interface Reader {
  readonly id: string;
  lastSeq: number;
  received: number;
  violations: string[];
  ended: boolean;
}

/** Scans frames as bytes (no decoding of the 10,000 streams' text): the ack, then ticks. */
function readFrames(reader: Reader, idStamp: Buffer, onAck: () => void): (chunk: Buffer) => void {
  let rest = Buffer.alloc(0);
  let acked = false;
  return (chunk) => {
    let data = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
    let end: number;
    while ((end = data.indexOf(FRAME_END)) !== -1) {
      const frame = data.subarray(0, end);
      data = data.subarray(end + 2);
      if (!acked) {
        if (frame.indexOf(ACK) !== -1) ((acked = true), onAck());
        continue;
      }
      const at = frame.indexOf(SEQ);
      if (at === -1) continue; // a keep-alive comment
      const seq = Number.parseInt(frame.toString("latin1", at + SEQ.length, at + SEQ.length + 12), 10);
      if (seq !== reader.lastSeq + 1 && reader.violations.length < 3) reader.violations.push(`tick ${seq} after ${reader.lastSeq}`);
      if (frame.indexOf(idStamp) === -1 && reader.violations.length < 3) reader.violations.push(`tick ${seq} without its id`);
      reader.lastSeq = seq;
      reader.received++;
    }
    rest = Buffer.from(data);
  };
}

function openReader(url: URL, id: string): Promise<Reader> {
  const reader: Reader = { id, lastSeq: 0, received: 0, violations: [], ended: false };
  const idStamp = Buffer.from(`"io.modelcontextprotocol/subscriptionId":${JSON.stringify(id)}`);
  const body = listenBody(id, [TICK_URI]);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers: listenHeaders(id, body) });
    req.on("error", reject);
    req.on("response", (res) => {
      if (res.statusCode !== 200) return reject(new Error(`listen ${id}: HTTP ${res.statusCode}`));
      res.on(
        "data",
        readFrames(reader, idStamp, () => resolve(reader)),
      );
      res.on("close", () => (reader.ended = true));
    });
    req.end(body);
  });
}

/** A stream whose client reads its ack and then nothing at all. */
function openStuck(url: URL, id: string): Promise<Socket> {
  const body = listenBody(id, [TICK_URI, BULK_URI]);
  const head = Object.entries({ ...listenHeaders(id, body), host: url.host })
    .map(([k, v]) => `${k}: ${v}`)
    .join("\r\n");
  const socket = connect(Number(url.port), url.hostname);
  socket.write(`POST ${url.pathname} HTTP/1.1\r\n${head}\r\n\r\n${body}`);
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    let seen = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      if (seen.indexOf(ACK) === -1) return;
      socket.off("data", onData);
      socket.pause(); // and never resume
      resolve(socket);
    };
    socket.on("data", onData);
  });
}

async function stats(url: URL): Promise<{ latencyMs: number; value: any }> {
  const started = performance.now();
  const response = await callTool(url, "stats", {});
  return { latencyMs: performance.now() - started, value: JSON.parse(response.result.content[0].text) };
}

async function main(): Promise<void> {
  const script = fileURLToPath(new URL("./slow-server.ts", import.meta.url));
  const child = spawn(process.execPath, [`--max-old-space-size=${values["server-heap-mb"]}`, "--import", "tsx", script], {
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [, listening] = await waitForStdout(child, /listening (\S+)/, 30_000);
  const url = new URL(listening!);
  const readers: Reader[] = [];
  const stuck: Socket[] = [];
  try {
    await stats(url);
    const idleRss = rssBytes(child.pid!);
    const openStart = performance.now();
    for (let first = 0; first < STREAMS; first += 250) {
      const batch: Promise<unknown>[] = [];
      for (let i = first; i < Math.min(STREAMS, first + 250); i++) {
        // Every tenth stream (with the default counts) is one that stops reading.
        if (i % Math.round(STREAMS / STUCK) === 0) batch.push(openStuck(url, `stuck-${i}`).then((s) => stuck.push(s)));
        else batch.push(openReader(url, `reader-${i}`).then((r) => readers.push(r)));
      }
      await Promise.all(batch);
    }
    await sleep(1000);
    const openRss = rssBytes(child.pid!);
    const before = (await stats(url)).value;
    const budgetMax = before.budgetMax as number;
    const bound = openRss + 2 * budgetMax + Number(values["rss-slack-mb"]) * MB;
    console.log(
      `slow-consumer soak: ${readers.length} reading + ${stuck.length} stuck streams opened in ${((performance.now() - openStart) / 1000).toFixed(1)} s; ` +
        `server RSS idle ${(idleRss / MB).toFixed(0)} MB, all open ${(openRss / MB).toFixed(0)} MB; budget ${(budgetMax / MB).toFixed(0)} MB; ` +
        `RSS bound ${(bound / MB).toFixed(0)} MB; ticks ${values.rate}/s of ${values.pad} B, bulk ${values.bulk} B/s to the stuck, for ${SECONDS} s; node ${process.version}`,
    );
    console.log("   t s   RSS MB   heap MB   buffered MB (peak)   evicted   open   ticks   stats ms");
    await callTool(url, "start", { ratePerSec: Number(values.rate), padBytes: Number(values.pad), bulkBytes: Number(values.bulk), durationMs: SECONDS * 1000 });
    const started = performance.now();
    let maxRss = openRss;
    let maxLatency = 0;
    let last = before;
    // Fan-out for SECONDS, then up to 45 s more for stuck streams the stall timer has yet to end.
    for (let tick = 1; performance.now() - started < (SECONDS + 45) * 1000; tick++) {
      await sleep(Math.max(0, started + tick * 1000 - performance.now()));
      const { latencyMs, value } = await stats(url);
      const t = Math.round((performance.now() - started) / 1000);
      const rss = rssBytes(child.pid!);
      maxRss = Math.max(maxRss, rss);
      maxLatency = Math.max(maxLatency, latencyMs);
      last = value;
      const evicted = value.ended.evicted ?? 0;
      if (tick <= 10 || tick % 5 === 0 || evicted >= stuck.length) {
        console.log(
          `${String(t).padStart(6)} ${(rss / MB).toFixed(0).padStart(8)} ${(value.heapUsed / MB).toFixed(0).padStart(9)} ` +
            `${(value.budgetUsed / MB).toFixed(1).padStart(12)} (${(value.budgetPeak / MB).toFixed(1)}) ${String(evicted).padStart(9)} ` +
            `${String(value.open).padStart(6)} ${String(value.published).padStart(7)} ${latencyMs.toFixed(0).padStart(10)}`,
        );
      }
      if (t >= SECONDS + 2 && evicted >= stuck.length) break;
    }
    const published = last.published as number;
    const short = readers.filter((r) => r.received !== published || r.ended);
    const disordered = readers.filter((r) => r.violations.length > 0);
    const failures: string[] = [];
    if (maxRss > bound) failures.push(`RSS peaked at ${(maxRss / MB).toFixed(0)} MB, over the ${(bound / MB).toFixed(0)} MB bound`);
    if (short.length > 0) failures.push(`${short.length} readers short or ended, e.g. ${short[0]!.id}: ${short[0]!.received}/${published}`);
    if (disordered.length > 0) failures.push(`${disordered.length} readers out of order: ${disordered[0]!.violations.join("; ")}`);
    if ((last.ended.evicted ?? 0) !== stuck.length) failures.push(`${last.ended.evicted ?? 0} of ${stuck.length} stuck streams evicted`);
    const otherEndings = Object.entries(last.ended).filter(([cause]) => cause !== "evicted");
    if (otherEndings.length > 0) failures.push(`other stream endings: ${JSON.stringify(Object.fromEntries(otherEndings))}`);
    console.log(
      `result: ${published} ticks; ${readers.length - short.length - disordered.length}/${readers.length} readers got all in order; ` +
        `${last.ended.evicted ?? 0}/${stuck.length} stuck evicted (${last.budgetEvictions} by the budget, the rest by the per-stream cap or stall time); ` +
        `RSS max ${(maxRss / MB).toFixed(0)} MB (bound ${(bound / MB).toFixed(0)}); buffered peak ${(last.budgetPeak / MB).toFixed(1)} MB of ${(budgetMax / MB).toFixed(0)}; ` +
        `stats latency max ${maxLatency.toFixed(0)} ms`,
    );
    for (const failure of failures) console.log(`FAIL ${failure}`);
    process.exitCode = failures.length === 0 ? 0 : 1;
  } finally {
    for (const socket of stuck) socket.destroy();
    agent.destroy();
    child.kill("SIGTERM");
  }
}

await main();

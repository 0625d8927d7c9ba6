/**
 * Slow-consumer soak: 10,000 listen streams on one runtime server (slow-server.ts, default
 * limits), of which 1,000 stop reading right after their ack, while numbered ticks are
 * fanned out to all of them for a minute. The stuck streams also watch a resource updated
 * with 128 KB once a second: a client that reads nothing is visible to the server only
 * once the kernel stops taking its bytes (the socket's send buffer and the peer's window:
 * about 4 MB on Linux loopback, measured here first), so they must be sent more than that
 * within the minute. Prints, each second, the server's RSS, heap and buffered output, the
 * evictions by rule, the ticks published, the server's and this process's CPU use, and
 * the latency of a `server/discover` probe. Checks, and exits 1 if any fails:
 * - the server's RSS stays under the bound: its RSS with every stream open and idle, plus
 *   twice the buffered-output budget (the V8 heap keeps dead strings until a collection),
 *   plus 64 MB of slack for the fan-out's own garbage (--rss-slack-mb);
 * - every reading stream gets every tick, in order, stamped with its own id, and stays open;
 * - every stuck stream ends by the documented policy (README "Limits"): evicted by the
 *   per-stream cap, the server-wide budget, or a refused write with no drain for
 *   maxStalledMs; and each was sent more than the kernel takes (else the run could not
 *   show the policy: the server fell behind);
 * - the server keeps answering: every `server/discover` probe (one a second) is answered
 *   within --max-probe-ms.
 *
 *   node --import tsx bench/soak/slow-consumers.ts [--streams 10000] [--stuck 1000]
 *     [--seconds 60] [--rate 1] [--pad 100] [--bulk 131072] [--rss-slack-mb 64]
 *     [--server-heap-mb 384] [--max-probe-ms 5000]
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
import { createServer as createTcpServer } from "node:net";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { waitForStdout } from "../../test/support/child-output.js";
import { agent, callTool, PROTOCOL_VERSION } from "./listen-stream.js";
import { cpuMs, rssBytes } from "./proc.js";

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
    "max-probe-ms": { type: "string", default: "5000" },
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
const EMPTY = Buffer.alloc(0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Bytes a loopback socket takes before a write is refused while its peer reads nothing:
 * what a stuck client can leave unread before the server can tell it from a reading one.
 */
async function kernelAllowance(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const peer = connect((server.address() as { port: number }).port, "127.0.0.1");
  peer.pause();
  const [socket] = (await new Promise((resolve) => server.once("connection", (s) => resolve([s])))) as Socket[];
  const chunk = Buffer.alloc(64 * 1024, 120);
  let taken = 0;
  // Write until Node holds bytes the kernel refused for a moment; bounded at 256 MB.
  for (let round = 0; round < 4096; round++) {
    socket.write(chunk);
    await new Promise((resolve) => setImmediate(resolve));
    if (socket.writableLength > 0) {
      await sleep(50);
      if (socket.writableLength > 0) break;
    }
    taken += chunk.length;
  }
  taken = socket.bytesWritten - socket.writableLength;
  socket.destroy();
  peer.destroy();
  server.close();
  return taken;
}

/** One `server/discover` request; its latency, or the reason it failed. */
async function discover(url: URL): Promise<{ latencyMs: number; error?: string }> {
  const started = performance.now();
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: `probe-${Date.now()}`,
    method: "server/discover",
    params: { _meta: { "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION, "io.modelcontextprotocol/clientCapabilities": {} } },
  });
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": PROTOCOL_VERSION,
        "mcp-method": "server/discover",
      },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (!response.ok || !text.includes('"supportedVersions"'))
      return { latencyMs: performance.now() - started, error: `HTTP ${response.status} ${text.slice(0, 100)}` };
    return { latencyMs: performance.now() - started };
  } catch (error) {
    return { latencyMs: performance.now() - started, error: (error as Error).message };
  }
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
  let rest = EMPTY;
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
    rest = data.length === 0 ? EMPTY : Buffer.from(data); // copied: the chunk is not ours to keep
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
    const allowance = await kernelAllowance();
    console.log(
      `slow-consumer soak: ${readers.length} reading + ${stuck.length} stuck streams opened in ${((performance.now() - openStart) / 1000).toFixed(1)} s; ` +
        `server RSS idle ${(idleRss / MB).toFixed(0)} MB, all open ${(openRss / MB).toFixed(0)} MB; budget ${(budgetMax / MB).toFixed(0)} MB; ` +
        `RSS bound ${(bound / MB).toFixed(0)} MB; a stuck loopback socket takes ${(allowance / MB).toFixed(1)} MB before refusing; ` +
        `ticks ${values.rate}/s of ${values.pad} B, bulk ${values.bulk} B/s to the stuck, for ${SECONDS} s; node ${process.version}`,
    );
    console.log(
      "   t s   RSS MB   heap MB   buffered MB (peak)   evicted cap/budget/stalled   open   ticks   server CPU %   soak CPU %   load   discover ms   stats ms",
    );
    await callTool(url, "start", { ratePerSec: Number(values.rate), padBytes: Number(values.pad), bulkBytes: Number(values.bulk), durationMs: SECONDS * 1000 });
    const started = performance.now();
    const startedAt = Date.now();
    let maxRss = openRss;
    let maxStats = 0;
    const probes: Array<{ latencyMs: number; error?: string }> = [];
    let last = before;
    let serverCpu = cpuMs(child.pid!);
    let ownCpu = process.cpuUsage();
    let lastSample = performance.now();
    // Fan-out for SECONDS, then up to 45 s more for stuck streams the stall timer has yet to end.
    for (let tick = 1; performance.now() - started < (SECONDS + 45) * 1000; tick++) {
      await sleep(Math.max(0, started + tick * 1000 - performance.now()));
      const [probe, { latencyMs, value }] = await Promise.all([discover(url), stats(url)]);
      probes.push(probe);
      const now = performance.now();
      const t = Math.round((now - started) / 1000);
      const rss = rssBytes(child.pid!);
      const cpuNow = cpuMs(child.pid!);
      const own = process.cpuUsage(ownCpu);
      const serverPct = ((cpuNow - serverCpu) / (now - lastSample)) * 100;
      const ownPct = ((own.user + own.system) / 1000 / (now - lastSample)) * 100;
      [serverCpu, ownCpu, lastSample] = [cpuNow, process.cpuUsage(), now];
      maxRss = Math.max(maxRss, rss);
      maxStats = Math.max(maxStats, latencyMs);
      last = value;
      const evicted = value.ended.evicted ?? 0;
      if (tick <= 10 || tick % 5 === 0 || evicted >= stuck.length || probe.error !== undefined) {
        const by = value.evictedBy;
        console.log(
          `${String(t).padStart(6)} ${(rss / MB).toFixed(0).padStart(8)} ${(value.heapUsed / MB).toFixed(0).padStart(9)} ` +
            `${(value.budgetUsed / MB).toFixed(1).padStart(12)} (${(value.budgetPeak / MB).toFixed(1)}) ` +
            `${String(evicted).padStart(9)} ${by["stream-cap"] ?? 0}/${by["server-budget"] ?? 0}/${by.stalled ?? 0}`.padEnd(30) +
            `${String(value.open).padStart(6)} ${String(value.published).padStart(7)} ${serverPct.toFixed(0).padStart(14)} ${ownPct.toFixed(0).padStart(12)} ` +
            `${loadavg()[0]!.toFixed(1).padStart(6)} ${probe.latencyMs.toFixed(0).padStart(13)}${probe.error ? ` (${probe.error})` : ""} ${latencyMs.toFixed(0).padStart(10)}`,
        );
      }
      if (t >= SECONDS + 2 && evicted >= stuck.length) break;
    }
    const published = last.published as number;
    const sentToStuck = (last.bulkPublished as number) * Number(values.bulk);
    const short = readers.filter((r) => r.received !== published || r.ended);
    const disordered = readers.filter((r) => r.violations.length > 0);
    const evicted = last.ended.evicted ?? 0;
    const byRule = last.evictedBy as Record<string, number>;
    const byPolicy = (byRule["stream-cap"] ?? 0) + (byRule["server-budget"] ?? 0) + (byRule.stalled ?? 0);
    const failedProbes = probes.filter((p) => p.error !== undefined);
    const maxProbe = Math.max(...probes.map((p) => p.latencyMs));
    const failures: string[] = [];
    if (maxRss > bound) failures.push(`RSS peaked at ${(maxRss / MB).toFixed(0)} MB, over the ${(bound / MB).toFixed(0)} MB bound`);
    if (short.length > 0) failures.push(`${short.length} readers short or ended, e.g. ${short[0]!.id}: ${short[0]!.received}/${published}`);
    if (disordered.length > 0) failures.push(`${disordered.length} readers out of order: ${disordered[0]!.violations.join("; ")}`);
    if (evicted !== stuck.length || byPolicy !== stuck.length)
      failures.push(`${evicted} of ${stuck.length} stuck streams evicted, ${byPolicy} by a rule of the policy`);
    if (sentToStuck <= allowance) {
      failures.push(
        `each stuck stream was sent ${(sentToStuck / MB).toFixed(1)} MB, no more than the kernel takes (${(allowance / MB).toFixed(1)} MB): the run cannot show the policy`,
      );
    }
    const otherEndings = Object.entries(last.ended).filter(([cause]) => cause !== "evicted");
    if (otherEndings.length > 0) failures.push(`other stream endings: ${JSON.stringify(Object.fromEntries(otherEndings))}`);
    if (failedProbes.length > 0) failures.push(`${failedProbes.length} server/discover probes failed, e.g. ${failedProbes[0]!.error}`);
    if (maxProbe > Number(values["max-probe-ms"])) failures.push(`a server/discover probe took ${maxProbe.toFixed(0)} ms, over ${values["max-probe-ms"]} ms`);
    const lastEviction = last.lastEvictionAt > 0 ? ((last.lastEvictionAt - startedAt) / 1000).toFixed(1) : "-";
    console.log(
      `result: ${published} ticks in ${SECONDS} s (${SECONDS * Number(values.rate)} due); ${readers.length - short.length - disordered.length}/${readers.length} readers got all in order; ` +
        `${evicted}/${stuck.length} stuck evicted (per-stream cap ${byRule["stream-cap"] ?? 0}, budget ${byRule["server-budget"] ?? 0}, stalled ${byRule.stalled ?? 0}), ` +
        `the last at ${lastEviction} s, each sent ${(sentToStuck / MB).toFixed(1)} MB; ` +
        `RSS max ${(maxRss / MB).toFixed(0)} MB (bound ${(bound / MB).toFixed(0)}); buffered peak ${(last.budgetPeak / MB).toFixed(1)} MB of ${(budgetMax / MB).toFixed(0)}; ` +
        `server/discover ${probes.length} probes, max ${maxProbe.toFixed(0)} ms, ${failedProbes.length} failed; stats max ${maxStats.toFixed(0)} ms`,
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

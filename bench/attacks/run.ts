/**
 * The hardening attacks against a server with a 256 MB heap, each followed by a probe from
 * a client that took no part: `node --import tsx bench/attacks/run.ts [--heap 256]`.
 *
 * - HTTP+SSE floods: one session's POSTs (each answered 202 before its request runs) starting
 *   requests that do not finish, as fast as the server takes them; then every session the
 *   server allows, from ten clients, each filled to its bound;
 * - requests kept: legacy sessions and listen streams each keeping as much of their requests
 *   as they may (capabilities, `_meta`, long `taskIds`), from many clients;
 * - task results: hundreds of tasks finishing with 1 MiB results;
 * - slow bodies: 150 connections each sending 4.1 MB then trickling (RSS growth measured);
 * - one update among 3,000 waiting tasks: a 0.9 MB `tasks/update` (server CPU measured,
 *   and a bystander's round trip meanwhile);
 * - a stdio client that never reads its answers.
 *
 * Prints one line per attack: what was sent, what the server did, RSS, and whether the
 * probe was served. Exits 1 if the server died or stopped serving. Loopback only.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import { cpuMs, rssBytes } from "../soak/proc.js";
import { TASKS_EXTENSION } from "../../packages/runtime/src/index.js";
import { mcpRequestHeaders } from "../../packages/runtime/src/transports/http-request.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const heapMb = Number(process.argv[process.argv.indexOf("--heap") + 1]) || 256;
const MODERN = "2026-07-28";
const MB = 1024 * 1024;
let broken = false;

function meta(extra: Record<string, unknown> = {}, tasks = false) {
  const capabilities = tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
  return { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": capabilities, ...extra };
}

async function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [`--max-old-space-size=${heapMb}`, "--import", "tsx", "bench/attacks/server.ts"], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (text: string) => {
      const match = /listening (\S+)/.exec(text);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the server exited with ${code} before listening`)));
  });
  return { child, url };
}

/** One modern request from `client`; the parsed JSON answer (or the first SSE message), and the response. */
async function call(url: string, client: string, method: string, params: Record<string, unknown>, id: string | number = 1): Promise<any> {
  const message = { jsonrpc: "2.0" as const, id, method, params };
  const response = await fetch(url, { method: "POST", headers: { ...mcpRequestHeaders(message), "x-client": client }, body: JSON.stringify(message) });
  return response.json();
}

/** A bystander's tools/call: its round trip in ms, or undefined when it was not answered. */
async function probe(url: string): Promise<number | undefined> {
  const started = performance.now();
  try {
    const answer = await call(url, "bystander", "tools/call", { name: "ping", arguments: {}, _meta: meta() }, "probe");
    return answer?.result?.content?.[0]?.text === "pong" ? performance.now() - started : undefined;
  } catch {
    return undefined;
  }
}

async function verdict(name: string, child: ChildProcess, url: string, figures: string): Promise<void> {
  const alive = child.exitCode === null && child.signalCode === null;
  const rtt = alive ? await probe(url) : undefined;
  const served = rtt !== undefined;
  if (!served) broken = true;
  const rss = alive ? `${(rssBytes(child.pid!) / MB).toFixed(0)} MB RSS` : `exited (${child.exitCode ?? child.signalCode})`;
  console.log(`${name}: ${figures}; ${rss}; bystander ${served ? `served in ${rtt!.toFixed(1)} ms` : "NOT SERVED"}`);
}

/**
 * Legacy sessions each keeping 60 KiB of capabilities, and listens each keeping about 60 KB
 * of `_meta` or of long taskIds (those name no task, so their streams end at once).
 */
async function keptRequests(url: string, child: ChildProcess): Promise<void> {
  const padding = "p".repeat(60 * 1024);
  let sessions = 0;
  let refusedSessions = 0;
  for (let client = 0; client < 40; client++) {
    await Promise.all(
      Array.from({ length: 30 }, async () => {
        const body = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: { experimental: { padding } }, clientInfo: { name: "a", version: "1" } } };
        const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-client": `s${client}` }, body: JSON.stringify(body) });
        await response.text();
        if (response.headers.get("mcp-session-id") !== null) sessions++;
        else refusedSessions++;
      }),
    );
  }
  const listens: AbortController[] = [];
  let acked = 0;
  const refusals = new Map<string, number>();
  const taskIds = Array.from({ length: 900 }, (_, i) => `task-${i}-${"t".repeat(24)}`);
  for (let client = 0; client < 40; client++) {
    await Promise.all(
      Array.from({ length: 40 }, async (_, n) => {
        const message = { jsonrpc: "2.0" as const, id: `l${n}`, method: "subscriptions/listen", params: { notifications: n % 4 === 0 ? { taskIds } : { toolsListChanged: true }, _meta: meta(n % 4 === 0 ? {} : { padding: padding.slice(0, 30_000) }, true) } };
        const abort = new AbortController();
        const response = await fetch(url, { method: "POST", headers: { ...mcpRequestHeaders(message), "x-client": `l${client}` }, body: JSON.stringify(message), signal: abort.signal });
        if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
          acked++;
          listens.push(abort);
        } else {
          const reason = String(((await response.json()) as any)?.error?.message ?? response.status).replace(/\d+/g, "N").slice(0, 70);
          refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
        }
      }),
    );
  }
  await verdict("requests kept", child, url, `${sessions} sessions of 60 KiB opened, ${refusedSessions} refused; ${acked} listens of ~60 KB acknowledged, refused: ${[...refusals].map(([why, n]) => `${n} "${why}"`).join(", ") || "none"}`);
  for (const abort of listens) abort.abort();
}

async function taskResults(url: string, child: ChildProcess): Promise<void> {
  let made = 0;
  for (let batch = 0; batch < 40; batch++) {
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => call(url, `t${batch % 4}`, "tools/call", { name: "big-result", arguments: {}, _meta: meta({}, true) }, `b${batch}-${i}`)));
    made += answers.filter((answer) => answer?.result?.taskId !== undefined).length;
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  await verdict("task results", child, url, `${made} tasks finished with 1 MiB results`);
}

/** 150 connections, each a 4.1 MB chunked body sent at once, then one byte every 500 ms. */
async function slowBodies(url: string, child: ChildProcess): Promise<void> {
  const before = rssBytes(child.pid!);
  let peak = before;
  const chunk = Buffer.alloc(4.1 * MB, 0x20);
  const requests = Array.from({ length: 150 }, () => {
    const outgoing = request(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" } });
    outgoing.on("error", () => {});
    outgoing.on("response", (res) => res.resume());
    outgoing.write("{");
    outgoing.write(chunk);
    return outgoing;
  });
  const trickle = setInterval(() => {
    for (const outgoing of requests) if (!outgoing.destroyed) outgoing.write(" ");
  }, 500);
  for (let i = 0; i < 20; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    peak = Math.max(peak, rssBytes(child.pid!));
  }
  clearInterval(trickle);
  await verdict("slow bodies", child, url, `150 x 4.1 MB chunked then trickled for 10 s: RSS grew ${((peak - before) / MB).toFixed(0)} MB at most`);
  for (const outgoing of requests) outgoing.destroy();
}

async function oneUpdate(url: string, child: ChildProcess): Promise<void> {
  let waiting = 0;
  let first: string | undefined;
  for (let batch = 0; batch < 150; batch++) {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(url, `w${batch % 3}`, "tools/call", { name: "waiting", arguments: {}, _meta: meta({}, true) }, `w${batch}-${i}`)));
    for (const answer of answers) if (answer?.result?.taskId !== undefined) (waiting++, (first ??= answer.result.taskId));
  }
  const cpuBefore = cpuMs(child.pid!);
  const update = call(url, "w0", "tasks/update", { taskId: first, inputResponses: { go: { action: "accept", content: { note: "u".repeat(0.9 * MB) } } }, _meta: meta({}, true) });
  const rtt = await probe(url);
  const answer = await update;
  await new Promise((resolve) => setTimeout(resolve, 200));
  const cpu = cpuMs(child.pid!) - cpuBefore;
  const outcome = answer?.error === undefined ? "answered" : `refused (${answer.error.message.slice(0, 80)})`;
  await verdict("one update", child, url, `${waiting} waiting tasks, one 0.9 MB tasks/update ${outcome}: ${cpu.toFixed(0)} ms server CPU; bystander meanwhile ${rtt === undefined ? "not served" : `${rtt.toFixed(1)} ms`}`);
}

/** An HTTP+SSE stream opened by `client` and initialized: its POST URL; its body is left unread from then on. */
async function openSseSession(url: string, client: string, streams: AbortController[]): Promise<URL | undefined> {
  const abort = new AbortController();
  streams.push(abort);
  const response = await fetch(url, { headers: { accept: "text/event-stream", "x-client": client }, signal: abort.signal });
  if (response.status !== 200) return (await response.text(), undefined);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (let reads = 0; !text.includes("\n\n") && reads < 100; reads++) {
    const chunk = await reader.read();
    if (chunk.done) return undefined;
    text += decoder.decode(chunk.value, { stream: true });
  }
  const endpoint = new URL(/data: (\S+)/.exec(text)?.[1] ?? "", url);
  const initialize = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "flood", version: "1" } } };
  const posted = await postSse(endpoint, client, initialize);
  return posted === 202 ? endpoint : undefined;
}

async function postSse(endpoint: URL, client: string, message: object): Promise<number> {
  const response = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json", "x-client": client }, body: JSON.stringify(message) });
  await response.arrayBuffer();
  return response.status;
}

interface FloodCounts {
  taken: number;
  refused: number;
  /** Answered otherwise, or not at all (the connection failed). */
  failed: number;
}

/** POSTs of tools/call to `hang` on one session by 64 senders, for `ms` or `max` POSTs: how many were taken (202), refused (429), failed. */
async function floodSession(endpoint: URL, client: string, ms: number, max: number): Promise<FloodCounts> {
  const counts = { taken: 0, refused: 0, failed: 0 };
  const deadline = Date.now() + ms;
  let sent = 0;
  const sender = async () => {
    while (Date.now() < deadline && sent < max) {
      const id = ++sent;
      const status = await postSse(endpoint, client, { jsonrpc: "2.0", id, method: "tools/call", params: { name: "hang", arguments: {} } }).catch(() => 0);
      if (status === 202) counts.taken++;
      else if (status === 429) counts.refused++;
      else counts.failed++;
    }
  };
  await Promise.all(Array.from({ length: 64 }, sender));
  return counts;
}

async function sseFlood(url: string, child: ChildProcess): Promise<void> {
  const streams: AbortController[] = [];
  const before = rssBytes(child.pid!);
  const endpoint = await openSseSession(url, "flood", streams);
  const one = endpoint === undefined ? { taken: 0, refused: 0, failed: 0 } : await floodSession(endpoint, "flood", 25_000, 100_000);
  const alive = child.exitCode === null && child.signalCode === null;
  const grew = alive ? ((rssBytes(child.pid!) - before) / MB).toFixed(0) : "?";
  await verdict("HTTP+SSE flood, one session", child, url, `${one.taken} requests started (202), ${one.refused} refused (429), ${one.failed} failed in 25 s; RSS grew ${grew} MB`);
  for (const stream of streams.splice(0)) stream.abort();
  if (!alive) return;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const endpoints: Array<{ endpoint: URL; client: string }> = [];
  for (let client = 0; client < 10; client++) {
    const opened = await Promise.all(Array.from({ length: 100 }, () => openSseSession(url, `sse${client}`, streams)));
    for (const endpoint of opened) if (endpoint !== undefined) endpoints.push({ endpoint, client: `sse${client}` });
  }
  const filled = { taken: 0, refused: 0, failed: 0 };
  for (let from = 0; from < endpoints.length; from += 100) {
    const batch = await Promise.all(endpoints.slice(from, from + 100).map(({ endpoint, client }) => floodSession(endpoint, client, 10_000, 20)));
    for (const counts of batch) (filled.taken += counts.taken), (filled.refused += counts.refused), (filled.failed += counts.failed);
  }
  await verdict("HTTP+SSE flood, every session", child, url, `${endpoints.length} sessions from 10 clients, 20 POSTs each: ${filled.taken} requests running, ${filled.refused} refused (429), ${filled.failed} failed`);
  for (const stream of streams) stream.abort();
  await new Promise((resolve) => setTimeout(resolve, 2000)); // their sessions end and give their slots back
}

/** The child's stdin drained, or a second passed (a server that no longer reads never drains it). */
function drainOrSecond(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      child.stdin!.off("drain", done);
      resolve();
    };
    const timer = setTimeout(done, 1000);
    child.stdin!.once("drain", done);
  });
}

/** A stdio client that writes requests and never reads: the server must cut it off, not run out of heap. */
async function neverReads(): Promise<void> {
  const child = spawn(process.execPath, [`--max-old-space-size=${heapMb}`, "--import", "tsx", "bench/fuzz/stdio-app.ts"], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
  child.stdout!.pause(); // never read
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  child.stdin!.on("error", () => {});
  const line = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } }) + "\n";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let sent = 0;
  let peak = 0;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && child.exitCode === null && sent < 400_000) {
    const ok = child.stdin!.write(line.repeat(1000));
    sent += 1000;
    peak = Math.max(peak, rssBytes(child.pid!));
    if (!ok) await drainOrSecond(child);
  }
  const stillRunning = child.exitCode === null && child.signalCode === null;
  child.kill("SIGKILL");
  await exited;
  const died = /heap out of memory/i.test(stderr) || child.signalCode === "SIGABRT";
  if (died) broken = true;
  console.log(`never reads (stdio): ${sent} requests written, never read: peak ${(peak / MB).toFixed(0)} MB RSS; ${died ? "RAN OUT OF HEAP" : stillRunning ? "server alive, input no longer read" : "server ended the connection"}`);
}

const { child, url } = await startServer();
try {
  console.log(`server: --max-old-space-size=${heapMb}, ${(rssBytes(child.pid!) / MB).toFixed(0)} MB RSS at start`);
  await sseFlood(url, child); // first: the sessions the next attack keeps would leave it few
  await keptRequests(url, child);
  await taskResults(url, child);
  await slowBodies(url, child);
  await oneUpdate(url, child);
} finally {
  child.kill("SIGTERM");
}
await neverReads();
process.exit(broken ? 1 : 0);

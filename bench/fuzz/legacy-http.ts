/**
 * A legacy (initialize-era) HTTP session under fuzz: the fuzz app served on 127.0.0.1, a
 * session opened with `initialize` at one revision, then a seeded run of POSTs naming it
 * (Mcp-Session-Id and MCP-Protocol-Version as a client of that revision sends them, now and
 * then a wrong session id or version) whose bodies are frames drawn from that era's methods
 * and the modern ones. Every answer must follow the rules below, and the session must keep
 * answering a `ping` (it is never lost to a bad frame); the process must see no unhandled
 * rejection.
 */
import { serveHttp } from "../../packages/runtime/src/transports/http-server.js";
import { sseMessages } from "../../packages/runtime/src/transports/http-client.js";
import { fuzzApp } from "./app.js";
import { collectTaskIds, expectation, frame, legacyPool, Random } from "./frames.js";
import { fail, newReport, type FuzzReport } from "./report.js";

const MAX_BODY = 64 * 1024;
const ANSWER_LIMIT_MS = 10_000;
/** Messages read from one SSE answer while looking for the one under the request's id. */
const MAX_STREAM_MESSAGES = 64;
const STATUSES = new Set([200, 202, 400, 404, 413, 415]);

interface Answer {
  status: number;
  /** The JSON body, or the SSE message under the request's id (else the first one). */
  body: any;
}

export async function fuzzLegacyHttp(seed: number, count: number, version: string): Promise<FuzzReport> {
  const report = newReport(`http@${version}`, seed);
  const random = new Random(seed);
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  const handle = await serveHttp(fuzzApp(), { maxBodyBytes: MAX_BODY });
  const pool = legacyPool();
  try {
    const session = await openSession(handle.url, version);
    if (session === undefined) {
      fail(report, 0, `initialize at ${version} opened no session at that version`);
      return report;
    }
    for (let i = 0; i < count; i++) {
      const id = random.chance(0.5) ? `l${i}` : 100_000 + i;
      let text = frame(random, id, pool);
      if (random.chance(0.02)) text = text.slice(0, -1) + " ".repeat(MAX_BODY) + text.slice(-1);
      const headers = sessionHeaders(random, session, version);
      report.frames++;
      let answer: Answer;
      try {
        answer = await send(handle.url, headers, text);
      } catch (error) {
        fail(report, i, `no answer: ${String(error)}`, text);
        continue;
      }
      check(report, i, text, headers, session, version, answer);
      collectTaskIds(pool, answer.body);
      if (i % 25 === 24) await stillServing(report, i, handle.url, session, version);
    }
  } finally {
    report.tasks = pool.taskIds.length;
    await handle.close();
    await new Promise((resolve) => setImmediate(resolve));
    process.off("unhandledRejection", onUnhandled);
  }
  for (const reason of unhandled) fail(report, -1, `unhandled rejection: ${String(reason)}`);
  return report;
}

async function openSession(url: string, version: string): Promise<string | undefined> {
  const initialize = { jsonrpc: "2.0", id: "initialize", method: "initialize", params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "fuzz", version: "1" } } };
  const response = await fetch(url, { method: "POST", headers: baseHeaders(), body: JSON.stringify(initialize) });
  const body = (await response.json()) as { result?: { protocolVersion?: string } };
  const session = response.headers.get("mcp-session-id");
  if (session === null || body.result?.protocolVersion !== version) return undefined;
  const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
  await (await fetch(url, { method: "POST", headers: { ...baseHeaders(), "mcp-session-id": session, "mcp-protocol-version": version }, body: JSON.stringify(initialized) })).text();
  return session;
}

function baseHeaders(): Record<string, string> {
  return { "content-type": "application/json", accept: "application/json, text/event-stream" };
}

/** What a client of that revision sends; now and then a session id or version that is not its own. */
function sessionHeaders(random: Random, session: string, version: string): Record<string, string> {
  const headers: Record<string, string> = { ...baseHeaders(), "mcp-session-id": session, "mcp-protocol-version": version };
  if (random.chance(0.04)) headers["mcp-session-id"] = random.pick(["00000000-0000-4000-8000-000000000000", "x", session + "x"]);
  if (random.chance(0.04)) headers["mcp-protocol-version"] = random.pick(["2026-07-28", "1999-01-01", "x"]);
  if (random.chance(0.03)) headers["content-type"] = random.pick(["text/plain", "application/json; charset=latin1"]);
  return headers;
}

async function send(url: string, headers: Record<string, string>, text: string): Promise<Answer> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer within ${ANSWER_LIMIT_MS} ms`)), ANSWER_LIMIT_MS);
  try {
    const response = await fetch(url, { method: "POST", headers, body: text, signal: abort.signal });
    if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      const body = await response.text();
      return { status: response.status, body: body.length > 0 ? JSON.parse(body) : undefined };
    }
    return { status: response.status, body: await answerInStream(response, expectation(text)) };
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/** A request's answer may follow notifications (progress, log) on its stream. */
async function answerInStream(response: Response, expected: ReturnType<typeof expectation>): Promise<unknown> {
  let first: unknown;
  let read = 0;
  for await (const data of sseMessages(response.body!)) {
    if (data.length === 0) continue; // a priming event carries no message
    const message = JSON.parse(data) as { id?: unknown };
    first ??= message;
    if (expected.kind === "request" && message.id === expected.id) return message;
    if (++read >= MAX_STREAM_MESSAGES) break;
  }
  return first;
}

function check(report: FuzzReport, i: number, text: string, headers: Record<string, string>, session: string, version: string, answer: Answer): void {
  const { status, body } = answer;
  const expected = expectation(text);
  if (expected.kind === "request") report.requests++;
  const broke = (what: string) => fail(report, i, `POST → ${status}: ${what}`, text);
  const ok = () => void report.answered++;
  if (!STATUSES.has(status)) return broke("a status the transport never sends (a crash?)");
  if (status !== 202 && !isJsonRpc(body)) return broke("the answer is not a JSON-RPC message");
  if (headers["content-type"]!.split(";")[0] !== "application/json") return status === 415 ? ok() : broke("a body not declared JSON must get 415");
  // The headers are read before the body: a session or version not the client's is refused first.
  if (headers["mcp-session-id"] !== session) return status === 404 || status === 400 ? ok() : broke("a foreign session id must get 404 (or 400)");
  if (headers["mcp-protocol-version"] !== version) return status === 400 ? ok() : broke("a version other than the session's must get 400");
  if (status === 413) return Buffer.byteLength(text) > MAX_BODY ? ok() : broke("413 for a body within the limit");
  if (Buffer.byteLength(text) > MAX_BODY) return broke("a body over the limit was not refused with 413");
  switch (expected.kind) {
    case "parse-error":
      return status === 400 && body.error?.code === -32700 ? ok() : broke("unparseable JSON must get 400 with -32700");
    case "invalid":
      return status === 400 && body.error !== undefined ? ok() : broke("an invalid message must get 400 with an error");
    case "response":
    case "notification":
      // A response no request waits for, or a notification: accepted (202) or refused (400).
      return status === 202 || (status === 400 && body.error !== undefined) ? ok() : broke("gets 202 (or 400)");
    case "request":
      return body?.id === expected.id && (status === 200 || body.error !== undefined)
        ? ok()
        : broke(`the request ${JSON.stringify(expected.id)} was not answered under its id`);
  }
}

function isJsonRpc(body: unknown): body is Record<string, any> {
  return typeof body === "object" && body !== null && (body as { jsonrpc?: unknown }).jsonrpc === "2.0";
}

async function stillServing(report: FuzzReport, i: number, url: string, session: string, version: string): Promise<void> {
  const headers = { ...baseHeaders(), "mcp-session-id": session, "mcp-protocol-version": version };
  const answer = await send(url, headers, JSON.stringify({ jsonrpc: "2.0", id: "probe", method: "ping" }));
  if (answer.status !== 200 || answer.body?.id !== "probe" || answer.body.result === undefined) {
    fail(report, i, `the session stopped answering ping: ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 160)}`);
  }
}

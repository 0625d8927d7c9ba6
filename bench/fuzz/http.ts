/**
 * The Streamable HTTP entry point under fuzz: the fuzz app served on 127.0.0.1 gets a
 * seeded run of POSTs (and some other verbs) whose bodies are frames and whose headers are
 * mirrored from the body, then mutated (dropped, changed, a foreign Origin, odd content
 * types), some bodies over the size limit. Each answer must follow the rules below; the
 * process must see no unhandled rejection and the server must keep answering. A GET asking
 * for an event stream opens an HTTP+SSE one (the 2024-11-05 transport): its first event must
 * name the URL to POST to.
 */
import { mcpRequestHeaders } from "../../packages/runtime/src/transports/http-request.js";
import { serveHttp } from "../../packages/runtime/src/transports/http-server.js";
import { sseMessages } from "../../packages/runtime/src/transports/http-client.js";
import type { JsonRpcMessage } from "../../packages/runtime/src/index.js";
import { fuzzApp } from "./app.js";
import { collectTaskIds, expectation, frame, modernPool, Random, taskMakers, type Expectation } from "./frames.js";
import { fail, newReport, type FuzzReport } from "./report.js";

const MAX_BODY = 64 * 1024;
const ANSWER_LIMIT_MS = 10_000;
const ALLOWED_ORIGIN = "http://localhost:5173";
const STATUSES = new Set([200, 202, 204, 400, 403, 404, 405, 413, 415]);
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

interface Answer {
  status: number;
  body: any;
  sse: boolean;
  /** The data of an HTTP+SSE stream's first event, `endpoint` (not JSON: a URL). */
  endpoint?: string;
}

export async function fuzzHttp(seed: number, count: number): Promise<FuzzReport> {
  const report = newReport("http", seed);
  const random = new Random(seed);
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  const handle = await serveHttp(fuzzApp(), { maxBodyBytes: MAX_BODY });
  const pool = modernPool();
  try {
    const makers = taskMakers();
    for (let i = 0; i < count; i++) {
      const id = random.chance(0.5) ? `h${i}` : 100_000 + i;
      // The run opens with clean calls that make tasks, so the tasks verbs that follow reach real ones.
      let text = i < makers.length ? makers[i]! : frame(random, id, pool);
      if (random.chance(0.02)) text = text.slice(0, -1) + " ".repeat(MAX_BODY) + text.slice(-1);
      const verb = random.chance(0.93) ? "POST" : random.pick(["GET", "DELETE", "PUT", "OPTIONS", "PATCH"]);
      const headers = i < makers.length ? mcpRequestHeaders(JSON.parse(text) as JsonRpcMessage) : fuzzHeaders(random, text);
      report.frames++;
      let answer: Answer;
      try {
        answer = await send(handle.url, verb, headers, text);
      } catch (error) {
        fail(report, i, `no answer: ${String(error)}`, text);
        continue;
      }
      check(report, i, text, verb, headers, answer);
      collectTaskIds(pool, answer.body);
      if (i % 25 === 24) await stillServing(report, i, handle.url);
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

function fuzzHeaders(random: Random, text: string): Record<string, string> {
  let headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  try {
    const parsed = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) headers = mcpRequestHeaders(parsed as JsonRpcMessage);
  } catch {}
  const names = Object.keys(headers);
  if (random.chance(0.1)) delete headers[random.pick(names)];
  if (random.chance(0.1))
    headers[random.pick(["mcp-method", "mcp-name", "mcp-protocol-version"])] = random.pick([
      "tools/list",
      "=?base64?!!?=",
      "=?base64?dG9vbHM=?=",
      "2099-01-01",
      "x y",
    ]);
  if (random.chance(0.1)) headers.origin = random.pick([ALLOWED_ORIGIN, "https://evil.example", "null", "http://localhost.evil.example"]);
  if (random.chance(0.05)) headers["content-type"] = random.pick(["text/plain", "application/json; charset=latin1", ""]);
  // What fetch cannot send (header values beyond Latin-1) no client can send either.
  for (const [name, value] of Object.entries(headers)) if (/[^\x20-\x7e]/.test(value)) delete headers[name];
  return headers;
}

async function send(url: string, verb: string, headers: Record<string, string>, text: string): Promise<Answer> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer within ${ANSWER_LIMIT_MS} ms`)), ANSWER_LIMIT_MS);
  try {
    const withBody = verb !== "GET" && verb !== "OPTIONS";
    const response = await fetch(url, { method: verb, headers, body: withBody ? text : undefined, signal: abort.signal });
    const sse = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
    if (sse) {
      // A listen stream stays open: its first message says enough, then the client leaves.
      const first = await sseMessages(response.body!).next();
      abort.abort();
      if (!first.done && first.value.startsWith("?")) return { status: response.status, body: undefined, sse, endpoint: first.value };
      return { status: response.status, body: first.done ? undefined : JSON.parse(first.value), sse };
    }
    const body = await response.text();
    return { status: response.status, body: body.length > 0 ? JSON.parse(body) : undefined, sse };
  } finally {
    clearTimeout(timer);
  }
}

/** The rules an answer must follow, from what the frame is under JSON-RPC and HTTP. */
function check(report: FuzzReport, i: number, text: string, verb: string, headers: Record<string, string>, answer: Answer): void {
  const { status, body } = answer;
  const expected: Expectation = expectation(text);
  if (expected.kind === "request") report.requests++;
  const broke = (what: string) => fail(report, i, `${verb} → ${status}: ${what}`, text);
  if (!STATUSES.has(status)) return broke("a status the transport never sends (a crash?)");
  const foreign = headers.origin !== undefined && headers.origin !== ALLOWED_ORIGIN;
  const opensStream = verb === "GET" && !foreign && /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(headers.accept ?? "");
  if (opensStream)
    return status === 200 && /^\?sessionId=/.test(answer.endpoint ?? "") ? void report.answered++ : broke("an HTTP+SSE stream must open with its endpoint");
  if (status !== 202 && status !== 204 && !isJsonRpc(body)) return broke("the answer is not a JSON-RPC message");
  if (verb !== "POST") {
    const want = foreign ? 403 : verb === "OPTIONS" && headers.origin === ALLOWED_ORIGIN ? 204 : 405;
    if (status !== want) broke(`expected ${want}`);
    return void report.answered++;
  }
  if (foreign) return status === 403 ? void report.answered++ : broke("a foreign Origin must get 403");
  // A dropped Content-Type is sent by fetch as text/plain: either way the body is not declared JSON.
  const json = (headers["content-type"] ?? "text/plain").split(";")[0]!.trim().toLowerCase() === "application/json";
  if (!json) return status === 415 ? void report.answered++ : broke("a body not declared application/json must get 415");
  if (status === 413) return Buffer.byteLength(text) > MAX_BODY ? void report.answered++ : broke("413 for a body within the limit");
  if (Buffer.byteLength(text) > MAX_BODY) return broke("a body over the limit was not refused with 413");
  switch (expected.kind) {
    case "parse-error":
      return status === 400 && body.error?.code === -32700 ? void report.answered++ : broke("unparseable JSON must get 400 with -32700");
    case "invalid":
      return status === 400 && body.error !== undefined ? void report.answered++ : broke("an invalid message must get 400 with an error");
    case "response":
      return status === 400 && body.error !== undefined ? void report.answered++ : broke("a client's response must be refused with 400");
    case "notification":
      return status === 202 || (status === 400 && body.error !== undefined) ? void report.answered++ : broke("a notification gets 202 (or 400)");
    case "request": {
      const answersIt = answer.sse
        ? body?.id === expected.id || body?.params?._meta?.[SUBSCRIPTION_ID] === expected.id
        : body.id === expected.id && (status === 200 ? true : body.error !== undefined);
      const statusFits = answer.sse ? status === 200 : status === 200 || status === 400 || status === 404;
      return answersIt && statusFits ? void report.answered++ : broke(`the request ${JSON.stringify(expected.id)} was not answered under its id`);
    }
  }
}

function isJsonRpc(body: unknown): body is Record<string, any> {
  return typeof body === "object" && body !== null && (body as { jsonrpc?: unknown }).jsonrpc === "2.0";
}

async function stillServing(report: FuzzReport, i: number, url: string): Promise<void> {
  const message = {
    jsonrpc: "2.0" as const,
    id: "probe",
    method: "tools/list",
    params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
  };
  const response = await fetch(url, { method: "POST", headers: mcpRequestHeaders(message), body: JSON.stringify(message) });
  const body = (await response.json()) as { id?: unknown };
  if (response.status !== 200 || body.id !== "probe") fail(report, i, `the server stopped answering: ${response.status}`);
}

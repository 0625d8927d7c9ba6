/**
 * The replica-cost bench's client side (run.ts): 2025-11-25 sessions, their GET streams and
 * `tools/call`, and a modern `tools/call` that makes a task, over node:http on loopback. Every
 * answer is checked; every wait is bounded.
 */
import { Agent, request } from "node:http";
import { ARGUMENTS, TOOL_NAME } from "../tools-call/tool.js";

const LEGACY_VERSION = "2025-11-25";
const MODERN_VERSION = "2026-07-28";
export const WAIT_MS = 120_000;
/** A replica may say 503 (not ready) for a moment while Redis is slow to answer its PING: a GET is tried again, this often at most. */
const GET_ATTEMPTS = 40;
/** What the load made the bench try again: GETs refused with 503 (not ready), POSTs whose socket was reset. */
export const retried = { streams: 0, posts: 0 };
// A connection per request: a kept-alive socket the server closes when idle races the next request on it.
const agent = new Agent({ keepAlive: false, maxSockets: 64 });

type Posted = { status: number; session?: string; text: string };

/** One POST; sent again once when a kept-alive socket was reset under it (the server closed it as the request went out). */
async function post(port: number, message: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Posted> {
  try {
    return await postOnce(port, message, headers);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ECONNRESET") throw error;
    retried.posts++;
    return postOnce(port, message, headers);
  }
}

function postOnce(port: number, message: Record<string, unknown>, headers: Record<string, string>): Promise<Posted> {
  const body = JSON.stringify(message);
  const all = { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers };
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", agent, headers: all, timeout: WAIT_MS }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk) => (text += chunk));
      res.once("end", () => resolve({ status: res.statusCode!, session: res.headers["mcp-session-id"] as string | undefined, text }));
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
const sessionHeaders = (id: string) => ({ "mcp-session-id": id, "mcp-protocol-version": LEGACY_VERSION });

export async function openSession(port: number): Promise<string> {
  const params = { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } };
  const init = await post(port, { jsonrpc: "2.0", id: nextId++, method: "initialize", params });
  if (init.session === undefined) throw new Error(`initialize failed: ${init.status} ${init.text.slice(0, 200)}`);
  const initialized = await post(port, { jsonrpc: "2.0", method: "notifications/initialized" }, sessionHeaders(init.session));
  if (initialized.status !== 202) throw new Error(`initialized got ${initialized.status}`);
  return init.session;
}

/** One checked `tools/call`; its round trip in ms. */
export async function timedCall(port: number, session: string): Promise<number> {
  const started = performance.now();
  const message = { jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name: TOOL_NAME, arguments: ARGUMENTS } };
  const answer = await post(port, message, sessionHeaders(session));
  const elapsed = performance.now() - started;
  if (answerOf(answer.text).result?.structuredContent?.city !== "Oslo") throw new Error(`unexpected answer: ${answer.text.slice(0, 300)}`);
  return elapsed;
}

/** One finished task, made through a modern `tools/call` of the replica's task tool. */
export async function makeTask(port: number): Promise<void> {
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  const params = { name: `${TOOL_NAME}_task`, arguments: ARGUMENTS, _meta };
  const headers = { "mcp-method": "tools/call", "mcp-name": `${TOOL_NAME}_task`, "mcp-protocol-version": MODERN_VERSION };
  const answer = await post(port, { jsonrpc: "2.0", id: nextId++, method: "tools/call", params }, headers);
  if (answerOf(answer.text).result?.resultType !== "task") throw new Error(`no task: ${answer.text.slice(0, 300)}`);
}

/** A session's GET stream (tried again while the replica says 503); counts the list changes it hears. */
export async function openStream(port: number, session: string, heard: () => void): Promise<() => void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await tryStream(port, session, heard);
    } catch (error) {
      if (!String(error).includes("503") || attempt >= GET_ATTEMPTS) throw error;
      retried.streams++;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** One GET; resolves once the response has begun. */
function tryStream(port: number, session: string, heard: () => void): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: "127.0.0.1", port, path: "/mcp", agent: false, headers: { accept: "text/event-stream", ...sessionHeaders(session) } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`GET got ${res.statusCode}`));
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
          for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
            if (text.lastIndexOf("tools/list_changed", end) >= 0) heard();
            text = text.slice(end + 2);
          }
        });
        resolve(() => outgoing.destroy());
      },
    );
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/** Runs `task` over `items`, `concurrency` at a time. */
export async function eachLimited<T, R>(items: readonly T[], concurrency: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const work = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, work));
  return results;
}

/**
 * Raw HTTP clients bound to loopback addresses (127.0.0.N: every one reaches 127.0.0.1 on
 * Linux), so that a balancer forwards each as a client of its own: legacy sessions opened with
 * `initialize` and ended with DELETE, and 2026-07-28 listen streams held open until closed.
 * Plain node:http on keep-alive agents rather than SDK clients, so thousands open in seconds;
 * every request has a deadline, and `inBatches` bounds how many run at once.
 */
import { Agent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { LEGACY_INITIALIZE, mcpHeaders, request } from "../../runtime/transports/http-helpers.js";

/** How long one request may take to be answered (a listen: until its first frame). */
const REQUEST_TIMEOUT_MS = 15_000;

const LEGACY_VERSION = "2025-11-25";

/** One keep-alive agent per address, its sockets bound there. */
export function agentsFor(addresses: readonly string[]): Map<string, Agent> {
  return new Map(addresses.map((address) => [address, new Agent({ keepAlive: true, localAddress: address })]));
}

/** Why each exchange that got no answer (status 0) failed, in order, for a failing assertion to show. */
export const unanswered: string[] = [];

/** Starts `POST/DELETE url` on `agent`; `onResponse` decides when it is done. Status 0 means no answer (error or deadline, noted in `unanswered`). */
function exchange<T>(
  url: string,
  agent: Agent,
  method: string,
  headers: OutgoingHttpHeaders,
  body: string | undefined,
  onResponse: (response: IncomingMessage, done: (value: T) => void) => void,
  failed: T,
): Promise<T> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (value: T) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(value);
    };
    const outgoing = httpRequest(url, { method, agent, headers: body === undefined ? headers : { ...headers, "content-length": Buffer.byteLength(body) } });
    const fail = (why: string) => {
      if (settled) return;
      unanswered.push(`${method}${outgoing.reusedSocket ? " on a reused socket" : ""}: ${why}`);
      done(failed);
    };
    const deadline = setTimeout(() => {
      outgoing.destroy();
      fail(`no answer within ${REQUEST_TIMEOUT_MS} ms`);
    }, REQUEST_TIMEOUT_MS);
    outgoing.on("response", (response) => onResponse(response, done));
    outgoing.on("error", (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    outgoing.end(body);
  });
}

export interface OpenedSession {
  readonly status: number;
  readonly sessionId: string | undefined;
}

/** A legacy `initialize`; resolves once its answer is read whole, with the session id it names (200 only). */
export function openSession(url: string, agent: Agent): Promise<OpenedSession> {
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  return exchange<OpenedSession>(
    url,
    agent,
    "POST",
    headers,
    JSON.stringify(LEGACY_INITIALIZE),
    (response, done) => {
      const header = response.headers["mcp-session-id"];
      const sessionId = response.statusCode === 200 && typeof header === "string" ? header : undefined;
      response.resume();
      response.on("end", () => done({ status: response.statusCode ?? 0, sessionId }));
      response.on("error", () => done({ status: 0, sessionId: undefined }));
    },
    { status: 0, sessionId: undefined },
  );
}

/** Ends a legacy session with DELETE (any replica may get it: the session is in the shared store); resolves with the status. */
export function endSession(url: string, agent: Agent, sessionId: string): Promise<number> {
  const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": LEGACY_VERSION };
  return exchange<number>(
    url,
    agent,
    "DELETE",
    headers,
    undefined,
    (response, done) => {
      response.resume();
      response.on("end", () => done(response.statusCode ?? 0));
      response.on("error", () => done(0));
    },
    0,
  );
}

export interface HeldListen {
  readonly status: number;
  /** The method of the stream's first message (`notifications/subscriptions/acknowledged` when served), else undefined. */
  readonly first: string | undefined;
  /** Closes the stream from the client side (its socket goes with it). */
  close(): void;
}

/** Opens a `subscriptions/listen` for tools list changes and waits for its first message, then holds the stream open. */
export function openListen(url: string, agent: Agent, id: string): Promise<HeldListen> {
  const message = request(id, "subscriptions/listen", { notifications: { toolsListChanged: true } });
  let stream: IncomingMessage | undefined;
  const close = () => stream?.destroy();
  return exchange<HeldListen>(
    url,
    agent,
    "POST",
    mcpHeaders(message),
    JSON.stringify(message),
    (response, done) => {
      stream = response;
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
        const end = text.indexOf("\n\n");
        if (end === -1) return;
        done({ status: response.statusCode ?? 0, first: firstMethod(text.slice(0, end)), close });
      });
      response.on("end", () => done({ status: response.statusCode ?? 0, first: firstMethod(text), close }));
      response.on("error", () => done({ status: 0, first: undefined, close }));
    },
    { status: 0, first: undefined, close },
  );
}

/** The method of the JSON-RPC message an SSE frame (or a plain JSON body) carries. */
function firstMethod(frame: string): string | undefined {
  const data = frame
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trimStart())
    .join("\n");
  try {
    const parsed = JSON.parse(data === "" ? frame : data) as { method?: string; error?: { message?: string } };
    return parsed.method ?? (parsed.error ? `error: ${parsed.error.message}` : undefined);
  } catch {
    return undefined;
  }
}

/** Runs `tasks` with at most `concurrency` at once; resolves with their results in order. */
export async function inBatches<T>(tasks: ReadonlyArray<() => Promise<T>>, concurrency: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
  return results;
}

/** How many times each value occurs, e.g. `{ "200": 1980, "429": 20 }`, for assertions that show the whole picture. */
export function tally(values: ReadonlyArray<number | string | undefined>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[String(value)] = (counts[String(value)] ?? 0) + 1;
  return counts;
}

/**
 * The 2025-11-25 side of Streamable HTTP as `mcp-gen listen` needs it: a session opened
 * by `initialize` (its `Mcp-Session-Id` on every later request), requests answered as
 * JSON or SSE, the standalone GET stream for server-initiated notifications (reconnected
 * with `Last-Event-ID` after the server's `retry` when the server closes it, within a floor
 * and a ceiling and backing off while streams keep closing early), and DELETE
 * at the end. Every answer and event is bounded by `maxMessageBytes`.
 */
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  fetchWithinOrigin,
  readText,
  sseMessages,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcResponse,
} from "../../generated/index.js";
import type { RequestOutcome } from "./rpc.js";

export { DEFAULT_MAX_MESSAGE_BYTES };

/** Reconnects of the GET stream in a row that carry nothing before giving up. */
const MAX_EMPTY_RECONNECTS = 5;
const DEFAULT_RETRY_MS = 1000;
/** The shortest wait before a reconnect, whatever `retry` the server asks for (0 included). */
export const MIN_RETRY_MS = 250;
/** The longest wait between reconnects, whatever `retry` the server asks for. */
export const MAX_RETRY_MS = 30_000;
/** A GET stream open at least this long resets the backoff; a shorter one doubles the next wait. */
export const STEADY_STREAM_MS = 10_000;

/**
 * The wait before the next reconnect: the server's `retry` held within
 * [MIN_RETRY_MS, MAX_RETRY_MS], doubled for each stream in a row that closed before
 * STEADY_STREAM_MS, up to MAX_RETRY_MS. A server that closes every stream at once (with
 * `retry: 0` or not) is reconnected to less and less often, never in a tight loop.
 */
export function reconnectDelay(retryMs: number, shortInARow: number): number {
  const base = Math.min(Math.max(retryMs, MIN_RETRY_MS), MAX_RETRY_MS);
  return Math.min(base * 2 ** Math.min(shortInARow, 30), MAX_RETRY_MS);
}

export interface LegacyHttpOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly maxMessageBytes: number;
  /** How often a `ping` tells the server the client is still there while it only listens. Default KEEP_ALIVE_MS. */
  readonly keepAliveMs?: number;
}

/**
 * A session that only listens sends nothing of its own, and a server may end a session whose
 * client is silent for long even while its GET stream is open (the runtime's
 * `legacy.maxSilentMs`, 2 h by default): a `ping` this often keeps it.
 */
export const KEEP_ALIVE_MS = 10 * 60_000;

export class LegacyHttpSession {
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #nextId = 1;
  #retryMs = DEFAULT_RETRY_MS;

  constructor(
    readonly url: string,
    readonly options: LegacyHttpOptions,
  ) {}

  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** Sends one request; the session id comes from the answer to `initialize`. */
  async request(method: string, params: Record<string, unknown> = {}): Promise<RequestOutcome> {
    const id = this.#nextId++;
    let response: Response;
    try {
      response = await this.#post({ jsonrpc: "2.0", id, method, params });
    } catch (error) {
      return { kind: "closed", reason: describe(error) };
    }
    this.#sessionId ??= response.headers.get("mcp-session-id") ?? undefined;
    const type = response.headers.get("content-type") ?? "";
    try {
      if (type.startsWith("text/event-stream") && response.body !== null) {
        for await (const data of sseMessages(response.body, this.options.maxMessageBytes)) {
          const message = parse(data);
          if (message !== undefined && !("method" in message) && message.id === id) {
            await response.body.cancel().catch(() => {});
            return this.#answered(method, message);
          }
        }
        return { kind: "closed", reason: `the answer stream of ${method} ended without its answer` };
      }
      const text = await readText(response, this.options.maxMessageBytes);
      const message = type.startsWith("application/json") ? parse(text) : undefined;
      if (message !== undefined && !("method" in message)) return this.#answered(method, message);
      return { kind: "closed", reason: `HTTP ${response.status} from ${this.url}${text ? `: ${text.slice(0, 200)}` : ""}` };
    } catch (error) {
      return { kind: "closed", reason: describe(error) };
    }
  }

  async notify(method: string): Promise<void> {
    const response = await this.#post({ jsonrpc: "2.0", method });
    await response.body?.cancel().catch(() => {});
    if (!response.ok) throw new Error(`HTTP ${response.status} for ${method}`);
  }

  /**
   * Reads the GET stream until `signal` aborts (resolves "stopped") or the server ends the
   * session or stops answering (resolves with the reason). A connection the server closes
   * is opened again after `retry`, from the last event id. `onOpen` runs once the first
   * connection is open: notifications sent before it went nowhere.
   */
  async watch(
    onNotification: (notification: JsonRpcNotification) => void,
    signal: AbortSignal,
    onOpen: () => void,
  ): Promise<{ how: "stopped" } | { how: "gone"; reason: string }> {
    const keepAlive = setInterval(() => void this.request("ping").catch(() => {}), this.options.keepAliveMs ?? KEEP_ALIVE_MS);
    try {
      return await this.#watch(onNotification, signal, onOpen);
    } finally {
      clearInterval(keepAlive);
    }
  }

  async #watch(
    onNotification: (notification: JsonRpcNotification) => void,
    signal: AbortSignal,
    onOpen: () => void,
  ): Promise<{ how: "stopped" } | { how: "gone"; reason: string }> {
    let lastEventId: string | undefined;
    let emptyInARow = 0;
    let shortInARow = 0;
    while (!signal.aborted) {
      let carried = false;
      const opened = Date.now();
      try {
        const response = await this.#fetch({ headers: this.#headers({ accept: "text/event-stream" }, lastEventId), signal });
        if (!response.ok || response.body === null) {
          await response.body?.cancel().catch(() => {});
          if (response.status === 404) return { how: "gone", reason: "the server ended the session (404)" };
          return { how: "gone", reason: `the GET stream was refused: HTTP ${response.status}` };
        }
        if (lastEventId === undefined) onOpen();
        const fields = { id: (id: string) => (lastEventId = id), retry: (ms: number) => (this.#retryMs = ms) };
        for await (const data of sseMessages(response.body, this.options.maxMessageBytes, fields)) {
          carried = true;
          const message = parse(data);
          if (message !== undefined && "method" in message && !("id" in message)) onNotification(message);
        }
      } catch (error) {
        if (signal.aborted) break;
        return { how: "gone", reason: `the GET stream failed: ${describe(error)}` };
      }
      emptyInARow = carried ? 0 : emptyInARow + 1;
      if (emptyInARow > MAX_EMPTY_RECONNECTS) return { how: "gone", reason: `the GET stream closed ${emptyInARow} times in a row without a message` };
      shortInARow = Date.now() - opened < STEADY_STREAM_MS ? shortInARow + 1 : 0;
      // The first reconnect after a short stream waits the server's retry (at least the
      // floor); each further one in a row waits twice as long.
      await sleep(reconnectDelay(this.#retryMs, Math.max(0, shortInARow - 1)), signal);
    }
    return { how: "stopped" };
  }

  /** Ends the session on the server (best effort: the server may already have ended it). */
  async close(): Promise<void> {
    if (this.#sessionId === undefined) return;
    await this.#fetch({ method: "DELETE", headers: this.#headers({}) })
      .then((response) => response.body?.cancel())
      .catch(() => {});
  }

  #answered(method: string, response: JsonRpcResponse): RequestOutcome {
    if (method === "initialize" && "result" in response) {
      const version = (response.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === "string") this.#protocolVersion = version;
    }
    return { kind: "response", response };
  }

  #post(message: JsonRpcMessage): Promise<Response> {
    const headers = this.#headers({ "content-type": "application/json", accept: "application/json, text/event-stream" });
    return this.#fetch({ method: "POST", headers, body: JSON.stringify(message) });
  }

  /** Redirects are followed only within the URL's origin, as the runtime's client does: `--header` values stay with the server named. */
  #fetch(init: RequestInit): Promise<Response> {
    return fetchWithinOrigin(fetch, new URL(this.url), init);
  }

  #headers(base: Record<string, string>, lastEventId?: string): Record<string, string> {
    const headers: Record<string, string> = { ...this.options.headers, ...base };
    if (this.#sessionId !== undefined) headers["mcp-session-id"] = this.#sessionId;
    if (this.#protocolVersion !== undefined) headers["mcp-protocol-version"] = this.#protocolVersion;
    if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
    return headers;
  }
}

function parse(text: string): JsonRpcMessage | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonRpcMessage) : undefined;
  } catch {
    return undefined;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown } | undefined;
  return typeof cause?.code === "string" ? `${error.message}: ${cause.code}` : error.message;
}

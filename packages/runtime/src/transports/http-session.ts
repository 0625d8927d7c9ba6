/**
 * The session side of the HTTP client (2025-11-25 Streamable HTTP): the `Mcp-Session-Id` a
 * server gives in its answer to `initialize`, sent back on every later request with the
 * negotiated `MCP-Protocol-Version`; the resumption of a request stream that ended before
 * its answer (a GET with `Last-Event-ID`, after the server's `retry`); and the DELETE that
 * ends the session. A 2026-07-28 server gives no session id, so none of this happens there.
 */
import { sseMessages, type SseFieldListener } from "./sse-messages.js";
import type { Fetcher } from "./http-redirects.js";

/** Wait before resuming when the server sent no `retry`. */
const DEFAULT_RETRY_MS = 1000;
/** The longest wait before a resumption, whatever `retry` asks for. */
export const MAX_RESUME_WAIT_MS = 30_000;
/** Resumptions in a row that carry no message before the request's stream is given up. */
export const MAX_EMPTY_RESUMES = 5;
/** The shortest wait before the session's GET stream is opened again. */
const MIN_REOPEN_MS = 250;
/** How long the DELETE that ends a session may take. */
const END_TIMEOUT_MS = 2000;

/** Where one request's stream stands: its last event id, the server's retry, and how many resumptions carried nothing. */
export interface StreamCursor {
  readonly fields: SseFieldListener;
  /** A message arrived on the stream. */
  carried(): void;
  lastEventId: string | undefined;
  retryMs: number;
  empty: number;
}

export class HttpSession {
  id: string | undefined;
  protocolVersion: string | undefined;

  constructor(
    readonly url: URL,
    /** The client's fetch, redirects held within the origin. */
    readonly fetch: Fetcher,
    readonly baseHeaders: Readonly<Record<string, string>>,
  ) {}

  /** The session's headers for the next message (none before a session exists). */
  headers(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.id !== undefined) headers["mcp-session-id"] = this.id;
    if (this.protocolVersion !== undefined) headers["mcp-protocol-version"] = this.protocolVersion;
    return headers;
  }

  /** Takes the session id from the first answer that carries one. */
  observe(response: Response): void {
    this.id ??= response.headers.get("mcp-session-id") ?? undefined;
  }

  cursor(): StreamCursor {
    const cursor: StreamCursor = {
      lastEventId: undefined,
      retryMs: DEFAULT_RETRY_MS,
      empty: 0,
      carried: () => void (cursor.empty = -1),
      fields: { id: (value) => void (cursor.lastEventId = value), retry: (ms) => void (cursor.retryMs = ms) },
    };
    return cursor;
  }

  /**
   * The next stream of a request whose stream ended before its answer, or undefined when it
   * cannot be resumed: no session, no event id, or MAX_EMPTY_RESUMES in a row without a message.
   * Waits the server's `retry` first (at most MAX_RESUME_WAIT_MS), as the spec asks.
   */
  async resume(cursor: StreamCursor, signal: AbortSignal): Promise<ReadableStream<Uint8Array> | undefined> {
    if (this.id === undefined || cursor.lastEventId === undefined) return undefined;
    cursor.empty += 1;
    if (cursor.empty > MAX_EMPTY_RESUMES) return undefined;
    await delay(Math.min(Math.max(cursor.retryMs, 0), MAX_RESUME_WAIT_MS), signal);
    if (signal.aborted) return undefined;
    const headers = { ...this.baseHeaders, ...this.headers(), accept: "text/event-stream", "last-event-id": cursor.lastEventId };
    const response = await this.fetch(this.url, { method: "GET", headers, signal });
    if (!response.ok || response.body === null || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`resuming with Last-Event-ID ${cursor.lastEventId} got HTTP ${response.status}`);
    }
    return response.body;
  }

  /**
   * Reads the session's GET stream until `signal` aborts, handing each message's text to
   * `deliver`; a stream the server closes is opened again after its `retry` (at least
   * MIN_REOPEN_MS, doubled for each one in a row that carried nothing, at most
   * MAX_RESUME_WAIT_MS) from the last event id. A server without one (405), a refusal, or
   * MAX_EMPTY_RESUMES empty streams in a row end the reading: requests still get their answers.
   */
  async watch(deliver: (text: string) => void, maxEventLength: number, signal: AbortSignal): Promise<void> {
    const cursor = this.cursor();
    while (!signal.aborted && this.id !== undefined && cursor.empty < MAX_EMPTY_RESUMES) {
      const headers: Record<string, string> = { ...this.baseHeaders, ...this.headers(), accept: "text/event-stream" };
      if (cursor.lastEventId !== undefined) headers["last-event-id"] = cursor.lastEventId;
      cursor.empty += 1;
      try {
        const response = await this.fetch(this.url, { method: "GET", headers, signal });
        if (!response.ok || response.body === null) return void (await response.body?.cancel().catch(() => {}));
        for await (const text of sseMessages(response.body, maxEventLength, cursor.fields)) {
          cursor.carried();
          deliver(text);
        }
      } catch {
        return; // aborted, or the stream failed: the session's requests are answered on their own streams
      }
      const backoff = 2 ** Math.max(0, cursor.empty);
      await delay(Math.min(Math.max(cursor.retryMs, MIN_REOPEN_MS) * backoff, MAX_RESUME_WAIT_MS), signal);
    }
  }

  /** Ends the session on the server, best effort and bounded: the server may already have ended it. */
  async end(): Promise<void> {
    if (this.id === undefined) return;
    const headers = { ...this.baseHeaders, ...this.headers() };
    this.id = undefined;
    await this.fetch(this.url, { method: "DELETE", headers, signal: AbortSignal.timeout(END_TIMEOUT_MS) })
      .then((response) => response.body?.cancel())
      .catch(() => {});
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

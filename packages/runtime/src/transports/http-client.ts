/**
 * The client side of Streamable HTTP (2026-07-28): each message is its own POST, with the
 * headers the server checks against the body; the answer is read as JSON or as an SSE
 * stream, and every message in it is delivered like any transport's (push or pull).
 *
 * Over HTTP a listen stream is cancelled by closing its response, so sending
 * `notifications/cancelled` for a request whose stream is open aborts that stream instead
 * of posting the notification. A stream that ends before its request was answered is
 * delivered as an "error" event carrying an `HttpStreamClosedError` with the request id.
 *
 * A server that answers with `Mcp-Session-Id` (a 2025-11-25 session, opened by
 * `initialize`) gets that id back on every later request, and `MCP-Protocol-Version` once
 * `useProtocolVersion` names the negotiated revision; such a session's request stream that
 * ends after an event id is resumed with a GET carrying `Last-Event-ID` after the server's
 * `retry` (http-session.ts), and `close()` ends the session with DELETE.
 */
import { classifyMessage, McpError, type JsonRpcMessage, type RequestId } from "../jsonrpc.js";
import type { ClientNotificationMethod } from "../protocol.js";
import {
  registerTransport,
  TransportClosedError,
  type ReceivedMessage,
  type Transport,
  type TransportCapability,
  type TransportListener,
} from "../transport.js";
import { Inbox } from "./inbox.js";
import { mcpRequestHeaders } from "./http-request.js";
import { HttpSession } from "./http-session.js";
import { DEFAULT_MAX_MESSAGE_BYTES, sseMessages } from "./sse-messages.js";
import { DEFAULT_MAX_REDIRECTS, fetchWithinOrigin, type Fetcher } from "./http-redirects.js";

/** Declared in sse-messages.ts, which the session reader (http-session.ts) shares. */
export { DEFAULT_MAX_MESSAGE_BYTES, sseMessages };

export interface HttpClientTransportOptions {
  /** Extra headers on every POST (for example `authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The fetch to use; default the global one. */
  readonly fetch?: typeof fetch;
  /**
   * The largest JSON answer (bytes) or SSE event (characters) accepted from the server;
   * a larger one fails that exchange and its response is cancelled. Default 16 MiB.
   */
  readonly maxMessageBytes?: number;
  /** Headers for one message on top of the others (a tool's `Mcp-Param-*` headers). */
  readonly messageHeaders?: MessageHeaders;
  /**
   * Redirects in a row followed within the URL's origin (http-redirects.ts); default 5. One
   * to another origin is never followed: it fails with an `HttpRedirectError` naming it.
   */
  readonly maxRedirects?: number;
}

/** Extra headers for one outgoing message, or undefined for none. */
export type MessageHeaders = (message: JsonRpcMessage) => Readonly<Record<string, string>> | undefined;

/** A request's response stream ended (or failed) before the request was answered. */
export class HttpStreamClosedError extends Error {
  constructor(
    readonly requestId: RequestId,
    message: string,
  ) {
    super(message);
    this.name = "HttpStreamClosedError";
  }
}

/** The server refused a message with an HTTP status and no JSON-RPC answer to it. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "HttpStatusError";
  }
}

/**
 * The `context` key of a delivered answer that came with an HTTP status other than 2xx:
 * the status says what the JSON-RPC error may not (a 401 and a 400 can both carry -32000).
 */
export const HTTP_STATUS_CONTEXT_KEY = "httpStatus";

/** The HTTP status a received message's context records (a non-2xx answer), if any. */
export function httpStatusOf(context: Readonly<Record<string, unknown>> | undefined): number | undefined {
  const status = context?.[HTTP_STATUS_CONTEXT_KEY];
  return typeof status === "number" ? status : undefined;
}

/** An error answer that came with an HTTP status other than 2xx: the JSON-RPC error, and the status beside it. */
export class HttpErrorAnswer extends McpError {
  constructor(
    readonly status: number,
    code: number,
    message: string,
    data?: unknown,
  ) {
    super(code, message, data);
  }
}

export class HttpClientTransport implements Transport {
  readonly url: URL;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #fetch: Fetcher;
  readonly #maxMessageBytes: number;
  readonly #inbox = new Inbox();
  /** Requests whose response is still open, by id: aborting one closes its stream. */
  readonly #open = new Map<RequestId, AbortController>();
  readonly #session: HttpSession;
  /** Headers for one message on top of the others; a client sets it once it knows its tools. */
  messageHeaders: MessageHeaders | undefined;
  #watching: AbortController | undefined;
  #closed = false;

  constructor(url: string | URL, options: HttpClientTransportOptions = {}) {
    this.url = new URL(url);
    this.#headers = options.headers ?? {};
    const fetcher = options.fetch ?? fetch;
    const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    if (!Number.isInteger(maxRedirects) || maxRedirects < 0) throw new TypeError(`maxRedirects must be a whole number, got ${String(maxRedirects)}`);
    this.#fetch = (url, init) => fetchWithinOrigin(fetcher, url, init, maxRedirects);
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.messageHeaders = options.messageHeaders;
    this.#session = new HttpSession(this.url, this.#fetch, this.#headers);
  }

  /** The session id the server gave (2025-11-25 sessions), if any. */
  get sessionId(): string | undefined {
    return this.#session.id;
  }

  /**
   * Opens the session's GET stream (once the session is initialized), where a 2025-11-25
   * server sends notifications and requests that belong to no request; read until close.
   */
  openSessionStream(): void {
    if (this.#closed || this.#session.id === undefined || this.#watching !== undefined) return;
    this.#watching = new AbortController();
    void this.#session.watch((text) => this.#receive(text), this.#maxMessageBytes, this.#watching.signal);
  }

  /** Sends `MCP-Protocol-Version: version` on every later message that carries no `_meta` version. */
  useProtocolVersion(version: string): void {
    this.#session.protocolVersion = version;
  }

  async connect(): Promise<void> {}

  async sendMessage(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) throw new TransportClosedError();
    if ("method" in message && message.method === ("notifications/cancelled" satisfies ClientNotificationMethod)) {
      const target = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      const open = target === undefined ? undefined : this.#open.get(target);
      if (open !== undefined) {
        open.abort();
        return;
      }
    }
    const id = "method" in message && "id" in message ? message.id : undefined;
    const abort = new AbortController();
    if (id !== undefined) this.#open.set(id, abort);
    let response: Response;
    try {
      response = await this.#fetch(this.url, {
        method: "POST",
        headers: { ...this.#headers, ...this.#session.headers(), ...mcpRequestHeaders(message), ...this.messageHeaders?.(message) },
        body: JSON.stringify(message),
        signal: abort.signal,
      });
    } catch (error) {
      if (id !== undefined) this.#open.delete(id);
      throw error;
    }
    this.#session.observe(response);
    const type = response.headers.get("content-type") ?? "";
    if (type.startsWith("text/event-stream") && response.body !== null) {
      void this.#pump(response.body, id, abort);
      return;
    }
    if (id !== undefined) this.#open.delete(id);
    const text = await readText(response, this.#maxMessageBytes);
    // A refusal that is not this request's answer (an error with id null, as a server that
    // does not know the request's revision may send) fails the send instead: nothing
    // would ever answer the request.
    if (type.startsWith("application/json") && text.length > 0 && (response.ok || id === undefined || answersRequest(text, id))) {
      this.#receive(text, response.ok ? undefined : response.status);
      return;
    }
    if (!response.ok) throw new HttpStatusError(response.status, `HTTP ${response.status} from ${this.url.href}${text ? `: ${text.slice(0, 200)}` : ""}`);
  }

  receiveMessage(): Promise<ReceivedMessage> {
    return this.#inbox.next();
  }

  subscribe(listener: TransportListener): void {
    this.#inbox.subscribe(listener);
  }

  capabilities(): readonly TransportCapability[] {
    return ["push"];
  }

  connected(): boolean {
    return !this.#closed;
  }

  /** Aborts every open response, ends a session the server opened (DELETE), and delivers "closed". */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const abort of this.#open.values()) abort.abort();
    this.#open.clear();
    this.#watching?.abort();
    await this.#session.end();
    this.#inbox.deliver({ type: "closed" });
  }

  /** Delivers one message of wire text (with the HTTP status it came with, when not 2xx); the answer to an open request closes its entry. */
  #receive(text: string, httpStatus?: number): void {
    const classified = classifyMessage(text);
    if (classified.kind === "response") {
      const id = classified.message.id;
      if (id !== undefined && id !== null) this.#open.delete(id);
    }
    const context = httpStatus === undefined ? {} : { context: { [HTTP_STATUS_CONTEXT_KEY]: httpStatus } };
    this.#inbox.deliver({ type: "message", message: classified.kind === "invalid" ? text : classified.message, ...context });
  }

  async #pump(body: ReadableStream<Uint8Array>, id: RequestId | undefined, abort: AbortController): Promise<void> {
    const cursor = this.#session.cursor();
    let failure: unknown;
    for (let stream: ReadableStream<Uint8Array> | undefined = body; stream !== undefined;) {
      try {
        for await (const data of sseMessages(stream, this.#maxMessageBytes, cursor.fields)) {
          cursor.carried();
          this.#receive(data);
        }
      } catch (error) {
        failure = error;
        if (!abort.signal.aborted) void stream.cancel().catch(() => {});
        break;
      }
      // A session's stream that ended before the answer, after an event id: resume it.
      const waiting = id !== undefined && this.#open.get(id) === abort && !abort.signal.aborted;
      stream = waiting ? await this.#session.resume(cursor, abort.signal).catch((error: unknown) => void (failure = error)) : undefined;
    }
    // Still open here means the stream ended without the request's answer: an abrupt close.
    if (id !== undefined && this.#open.get(id) === abort) {
      this.#open.delete(id);
      const how = abort.signal.aborted ? "was cancelled" : failure ? `failed: ${String(failure)}` : "ended";
      this.#inbox.deliver({ type: "error", error: new HttpStreamClosedError(id, `the response stream of request ${id} ${how} before its answer`) });
    }
  }
}

function answersRequest(text: string, id: RequestId): boolean {
  const classified = classifyMessage(text);
  return classified.kind === "response" && classified.message.id === id;
}

/** A response body as text, refused (and cancelled) once it would exceed `limit` bytes. */
export async function readText(response: Response, limit: number): Promise<string> {
  const body = response.body;
  if (body === null) return "";
  const tooLarge = () => new Error(`the answer from ${response.url || "the server"} exceeds ${limit} bytes; raise maxMessageBytes to accept it`);
  if (Number(response.headers.get("content-length")) > limit) {
    await body.cancel().catch(() => {});
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}

registerTransport("http", HttpClientTransport);

/**
 * Streamable HTTP as a web-standard fetch handler: `toFetchHandler(server, options)` returns
 * `(request: Request, context?) => Promise<Response>`, for Bun, Deno, Cloudflare Workers,
 * Vercel and Netlify functions, and any router speaking `Request`/`Response` (Hono, Next.js
 * route handlers). It is the fetch adapter of the one core (http-core.ts): the same steps,
 * limits and legacy sessions as the node handler. A lone answer is a `Response` with a text
 * body; a stream is a `ReadableStream` of SSE frames whose queue is the stream's buffer (the
 * slow-consumer rules of http-sse.ts count it, and cut it by erroring the stream).
 *
 * Imports no `node:` module (types only: a node request a bridge passes is read by
 * http-node.ts, which needs none either).
 */
import type { IncomingMessage } from "node:http";
import { createHttpCore, type ConnectableServer, type HttpEndpointOptions } from "./http-core.js";
import type { HttpRequest, HttpResponse, HttpResponseEvent } from "./http-io.js";
import { unrefTimer } from "./http-io.js";
import { readMessage as readNodeBody, refuseBody as refuseNodeBody } from "./http-node.js";
import { overBudget, parseBody, tooLarge, tooSlow, writeRejection, type BodyLimits, type HttpRejection, type ParsedBody } from "./http-request.js";

export interface FetchHandlerOptions extends HttpEndpointOptions {
  /** The one path served (e.g. `/mcp`); other paths get 404. Unset: every path. */
  readonly path?: string;
  /**
   * Authenticates a request before its body is read, as the node handler's hook does: the
   * value returned becomes `principal`; throw `HttpAuthError` to refuse.
   */
  readonly authenticate?: (request: Request) => unknown | Promise<unknown>;
  /**
   * The peer's address, the client key of per-client limits when no principal is known (or,
   * from a peer in `trustedProxies`, what its X-Forwarded-For says). The default reads Deno's
   * `info.remoteAddr`, Bun's `server.requestIP(request)` and `@hono/node-server`'s `incoming`
   * socket from the handler's second argument; elsewhere (Workers) every request counts as its
   * own client unless this says otherwise (for example from a header only the platform's edge sets).
   */
  readonly clientAddress?: (request: Request, context: unknown) => string | undefined;
}

export type FetchHandler = (request: Request, context?: unknown) => Promise<Response>;

/** A fetch handler serving `server` over Streamable HTTP. */
export function toFetchHandler(server: ConnectableServer, options: FetchHandlerOptions = {}): FetchHandler {
  const hook = options.authenticate;
  const core = createHttpCore(server, {
    ...options,
    endpointPath: options.path,
    authenticate: hook === undefined ? undefined : (request) => hook((request as FetchRequest).request),
  });
  const clientAddress = options.clientAddress ?? runtimeClientAddress;
  return (request, context) => {
    const address = clientAddress(request, context);
    const response = new FetchResponse(request.signal);
    core.handle(new FetchRequest(request, address, unreadNodeRequest(context)), response);
    return response.ready;
  };
}

/**
 * The peer address a runtime hands a fetch handler: Deno's `info.remoteAddr.hostname`, Bun's
 * `server.requestIP(request).address`, or the socket of the node request a bridge passes
 * (`@hono/node-server`'s `{ incoming }`, whether the handler is its `fetch` or a Hono route's `c.env`).
 */
export function runtimeClientAddress(request: Request, context: unknown): string | undefined {
  if (context === null || typeof context !== "object") return undefined;
  const { remoteAddr, requestIP, incoming } = context as { remoteAddr?: { hostname?: unknown }; requestIP?: unknown; incoming?: NodeBridgeRequest };
  if (typeof remoteAddr?.hostname === "string") return remoteAddr.hostname;
  if (typeof incoming?.socket?.remoteAddress === "string") return incoming.socket.remoteAddress;
  if (typeof requestIP !== "function") return undefined;
  const ip = (requestIP as (request: Request) => { address?: unknown } | null).call(context, request);
  return typeof ip?.address === "string" ? ip.address : undefined;
}

/** The node request a node-to-fetch bridge passes beside the web one (the part read here). */
interface NodeBridgeRequest {
  readonly socket?: { readonly remoteAddress?: unknown };
  readonly on?: unknown;
  readonly readableDidRead?: boolean;
  readonly rawBody?: unknown;
}

/**
 * The node request under a bridge (`@hono/node-server`'s `incoming`) whose body nobody has
 * read yet: its body is read as the node handler reads one, byte by byte from the budget,
 * with no web stream built over it. A body a host already took (`rawBody`, a read stream)
 * is left to the web request.
 */
function unreadNodeRequest(context: unknown): IncomingMessage | undefined {
  const incoming = (context as { incoming?: NodeBridgeRequest } | null | undefined)?.incoming;
  if (typeof incoming?.on !== "function" || incoming.readableDidRead !== false || "rawBody" in incoming) return undefined;
  return incoming as unknown as IncomingMessage;
}

/** One web request as the core reads it. */
export class FetchRequest implements HttpRequest {
  #url: URL | undefined;

  constructor(
    readonly request: Request,
    readonly remoteAddress: string | undefined,
    /** The node request under the web one, when a bridge passed it unread: the body is read from it. */
    readonly nodeRequest?: IncomingMessage,
  ) {}

  get method(): string {
    return this.request.method;
  }

  get path(): string {
    return this.#parsed().pathname;
  }

  query(name: string): string | undefined {
    const url = this.#parsed();
    return url.search === "" ? undefined : (url.searchParams.get(name) ?? undefined);
  }

  /** Parsed once: the path and the query both read it. */
  #parsed(): URL {
    return (this.#url ??= new URL(this.request.url));
  }

  get headers(): Headers {
    return this.request.headers;
  }

  /** No socket to key on: each request is its own connection. */
  get connection(): object {
    return this.request;
  }

  readMessage(limits: BodyLimits): Promise<ParsedBody | HttpRejection> {
    return this.nodeRequest === undefined ? readFetchBody(this.request, limits) : readNodeBody(this.nodeRequest, limits);
  }

  /**
   * The rest of the body is the fetch runtime's to drop: it is cancelled, and the refusal
   * answered; a node request's rest is dropped as the node handler drops it.
   */
  refuse(response: HttpResponse, rejection: HttpRejection): void {
    if (this.nodeRequest !== undefined) return refuseNodeBody(this.nodeRequest, response, rejection);
    if (this.request.body !== null && !this.request.bodyUsed && !this.request.body.locked) this.request.body.cancel().catch(() => {});
    writeRejection(response, rejection);
  }
}

/**
 * Reads a body within `limits`, as the node reader does: a declared length over the limit,
 * or over what the shared budget has left, is refused before reading; every chunk is taken
 * from the budget as it arrives (a declared length reserves nothing: a client that announces
 * a body and sends none holds nothing) and given back once parsed or refused; past
 * `bodyTimeoutMs` the read is cancelled (408).
 */
async function readFetchBody(request: Request, limits: BodyLimits): Promise<ParsedBody | HttpRejection> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limits.maxBodyBytes) return tooLarge(limits.maxBodyBytes);
  if (Number.isFinite(declared) && limits.held + declared > limits.maxTotalBodyBytes) return overBudget(limits);
  if (request.body === null) return parseBody("");
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timedOut = false;
  const timer = unrefTimer(setTimeout(() => ((timedOut = true), reader.cancel().catch(() => {})), limits.bodyTimeoutMs));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (timedOut) return tooSlow(limits);
      if (done) break;
      if (size + value.byteLength > limits.maxBodyBytes) return cancelled(reader, tooLarge(limits.maxBodyBytes));
      if (!limits.take(value.byteLength)) return cancelled(reader, overBudget(limits));
      size += value.byteLength;
      chunks.push(value);
    }
  } catch (error) {
    if (timedOut) return tooSlow(limits);
    throw error;
  } finally {
    clearTimeout(timer);
    limits.give(size);
  }
  return parseBody(decoder.decode(chunks.length === 1 ? chunks[0] : concat(chunks, size)));
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function cancelled(reader: ReadableStreamDefaultReader<Uint8Array>, rejection: HttpRejection): HttpRejection {
  reader.cancel().catch(() => {});
  return rejection;
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** What a stream's queue may hold before `write` says "wait": Node's socket high-water mark, so both paths congest alike. */
export const FETCH_HIGH_WATER_BYTES = 16 * 1024;

/** Headers a fetch runtime sets itself (and some refuse from a handler). */
const RUNTIME_HEADERS = new Set(["content-length", "connection", "transfer-encoding", "keep-alive"]);

/**
 * One response as a web `Response`: `ready` resolves once its head and first bytes are
 * known (at the first write, or the end). A body ended in one go is plain text; otherwise
 * the body is a `ReadableStream` whose queue counts as `writableLength`.
 */
export class FetchResponse implements HttpResponse {
  headersSent = false;
  destroyed = false;
  writableEnded = false;
  writableFinished = false;
  readonly writableHighWaterMark = FETCH_HIGH_WATER_BYTES;
  readonly socket = null;
  readonly ready: Promise<Response>;
  #resolve!: (response: Response) => void;
  #status = 200;
  readonly #headers = new Headers();
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #waitingForDrain = false;
  #closed = false;
  readonly #listeners: { [E in HttpResponseEvent]: Array<{ listener: () => void; once: boolean }> } = { close: [], drain: [] };

  constructor(signal: AbortSignal | undefined) {
    this.ready = new Promise((resolve) => (this.#resolve = resolve));
    // The client went away (the runtime aborts the request's signal): the response is cut.
    signal?.addEventListener("abort", () => this.#cut(), { once: true });
  }

  get writableLength(): number {
    const controller = this.#controller;
    if (controller === undefined || this.writableEnded || this.destroyed) return 0;
    return Math.max(0, FETCH_HIGH_WATER_BYTES - (controller.desiredSize ?? 0));
  }

  writeHead(status: number, headers?: Readonly<Record<string, string | number>>): this {
    this.#status = status;
    for (const [name, value] of Object.entries(headers ?? {})) this.setHeader(name, String(value));
    this.headersSent = true;
    return this;
  }

  setHeader(name: string, value: string): this {
    if (!RUNTIME_HEADERS.has(name.toLowerCase())) this.#headers.set(name, value);
    return this;
  }

  write(chunk: string | Uint8Array): boolean {
    if (this.destroyed || this.writableEnded) return false;
    const controller = this.#stream();
    controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
    const accepted = (controller.desiredSize ?? 0) > 0;
    if (!accepted) this.#waitingForDrain = true;
    return accepted;
  }

  end(chunk?: string): this {
    if (this.destroyed || this.writableEnded) return this;
    this.writableEnded = true;
    if (this.#controller === undefined) {
      // Answered in one go: a plain body (none for the statuses that may not carry one).
      const empty = chunk === undefined || chunk === "" || this.#status === 204 || this.#status === 304;
      this.#resolve(new Response(empty ? null : chunk, { status: this.#status, headers: this.#headers }));
    } else {
      if (chunk !== undefined && chunk !== "") this.#controller.enqueue(encoder.encode(chunk));
      this.#controller.close();
    }
    this.writableFinished = true;
    this.#emitClose();
    return this;
  }

  /** Cuts the response: the client sees its stream fail (as a node socket destroyed mid-stream). */
  destroy(): this {
    if (this.destroyed || this.writableFinished) return this;
    this.destroyed = true;
    const controller = this.#controller ?? this.#stream();
    controller.error(new Error("the server ended this stream"));
    this.#emitClose();
    return this;
  }

  on(event: HttpResponseEvent, listener: () => void): this {
    this.#listeners[event].push({ listener, once: false });
    return this;
  }

  once(event: HttpResponseEvent, listener: () => void): this {
    this.#listeners[event].push({ listener, once: true });
    return this;
  }

  off(event: HttpResponseEvent, listener: () => void): this {
    const list = this.#listeners[event];
    const at = list.findIndex((entry) => entry.listener === listener);
    if (at >= 0) list.splice(at, 1);
    return this;
  }

  /** The body stream, made (and the response handed over) at the first write. */
  #stream(): ReadableStreamDefaultController<Uint8Array> {
    if (this.#controller !== undefined) return this.#controller;
    let made!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => void (made = controller),
        pull: () => this.#pulled(),
        cancel: () => this.#cut(),
      },
      { highWaterMark: FETCH_HIGH_WATER_BYTES, size: (chunk) => chunk.byteLength },
    );
    this.#controller = made;
    this.headersSent = true;
    // A stream of unknown length, said so: a node bridge such as @hono/node-server otherwise
    // waits a timer turn for more chunks to set a Content-Length, delaying the first frame
    // (a listen's ack). Bun and Deno take the header as it is.
    this.#headers.set("transfer-encoding", "chunked");
    this.#resolve(new Response(body, { status: this.#status, headers: this.#headers }));
    return made;
  }

  /** The reader took from the queue and wants more: a writer told to wait may go on. */
  #pulled(): void {
    if (!this.#waitingForDrain || this.destroyed) return;
    this.#waitingForDrain = false;
    this.#emit("drain");
  }

  /** The client's side went away (cancelled stream, aborted request) before the end. */
  #cut(): void {
    if (this.destroyed || this.writableFinished) return;
    this.destroyed = true;
    if (this.#controller === undefined) this.#resolve(new Response(null, { status: 499 }));
    // The runtime may still hold the body open on its side; a no-op if it cancelled the stream.
    else this.#controller.error(new Error("the client went away"));
    this.#emitClose();
  }

  /** `close` once, after the current step (as Node emits it), so a writer ending the stream finishes first. */
  #emitClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    queueMicrotask(() => this.#emit("close"));
  }

  #emit(event: HttpResponseEvent): void {
    const list = this.#listeners[event];
    for (const entry of [...list]) {
      if (entry.once) this.off(event, entry.listener);
      entry.listener();
    }
  }
}

/**
 * The HTTP+SSE transport of 2024-11-05, which its clients still speak over HTTP (2025-03-26
 * replaced it with Streamable HTTP): a GET on the endpoint, without a session, opens an event
 * stream whose first event, `endpoint`, names where to POST (the same URL with `?sessionId=`).
 * Every message POSTed there is accepted with 202, and whatever the server sends (answers,
 * requests, notifications) travels on that one stream. The stream is the session's output:
 * its first POST must be `initialize`, which opens a legacy session (session.ts) that lives as
 * long as the stream, and the stream ends when the session does.
 *
 * Bounded like the other sessions: a stream takes one of the sessions' slots from the GET on
 * (the pool of `maxSessions` and the client's `maxSessionsPerClient` share; 429 or 503
 * beyond), and the session its `initialize` opens keeps that slot rather than taking a
 * second; it waits at most `sseInitializeMs` for `initialize`, and holds at most what any SSE
 * stream may (http-sse.ts, `maxBufferedBytes`).
 * Every POST is answered 202 before its request runs, so a session may have at most
 * `sseMaxInFlight` requests running: one more is refused with 429 and `Retry-After`, its
 * body the JSON-RPC error of its id (a 1.x client's send rejects with that text).
 * A later request must come from the principal that opened the stream (else 404). Such a
 * session lives in the process holding its stream, so with a session store (several
 * replicas) this transport is not served: a GET without a session stays 405.
 */
import { ERROR_CODES } from "../protocol.js";
import { errorResponse, type Classified, type JsonRpcMessage, type RequestId } from "../jsonrpc.js";
import { clientKey, type ClientKey, type SlotRefusal } from "../subscriptions/slots.js";
import {
  SENT,
  TransportClosedError,
  type MessageContext,
  type ReceivedMessage,
  type Transport,
  type TransportCapability,
  type TransportListener,
} from "../transport.js";
import { answerEmpty, refuseClientResponse, statusForErrorCode, type HttpRejection } from "../transports/http-request.js";
import { afterThisStep, unrefTimer, type HttpRequest } from "../transports/http-io.js";
import { SseWriter, writeAnswerFrame } from "../transports/http-sse.js";
import { Inbox } from "../transports/inbox.js";
import { sseFrame } from "../transports/sse-frames.js";
import type { LegacyEra } from "./era.js";
import { isEraInitialize as isLegacyInitialize } from "../era.js";
import { samePrincipal, versionMismatch, type LegacyHttpExchange } from "./http.js";
import { serveInSession } from "./post-exchange.js";
import { LegacySession } from "./session.js";
import type { SessionOutput } from "./session-host.js";

/** The query parameter naming a stream on the POST URL its `endpoint` event gives. */
const SSE_SESSION_PARAM = "sessionId";

/** Whether a request belongs to this transport, before anything is read: one that opens a stream (GET), or a message posted to one. */
export function sseTransportRequest(era: LegacyEra | undefined, req: HttpRequest, sessionId: string | undefined): "open" | "sse-post" | undefined {
  if (era === undefined || !era.enabled || era.shared !== undefined || sessionId !== undefined) return undefined;
  if (req.method === "POST") return req.query(SSE_SESSION_PARAM) === undefined ? undefined : "sse-post";
  // A GET resuming a Streamable HTTP stream carries Last-Event-ID: that stays the newer transport's.
  if (req.method !== "GET" || req.headers.get("last-event-id") != null) return undefined;
  return asksForEventStream(req.headers.get("accept")) ? "open" : undefined;
}

/** EventSource names `text/event-stream`; a wildcard Accept (a browser tab, curl) opens no stream. */
function asksForEventStream(accept: string | null | undefined): boolean {
  return typeof accept === "string" && accept.split(",").some((range) => range.split(";")[0]!.trim().toLowerCase() === "text/event-stream");
}

/** A GET: a new stream, its `endpoint` event first; refused (nothing opened) at the session limits or while the server closes. */
export function openSseStream(era: LegacyEra, exchange: LegacyHttpExchange): void {
  if (exchange.closing)
    return exchange.reject({ status: 503, headers: { "retry-after": "1" }, body: errorResponse(null, ERROR_CODES.InternalError, "server is shutting down") });
  const streams = streamsOf(era);
  const { req, res, context } = exchange;
  const client = clientKey(context?.["principal"], exchange.clientAddress, req.connection);
  const refusal = era.reserveSlot(client);
  if (refusal !== undefined) return exchange.reject(streamRefusal(refusal));
  const { maxBufferedBytes } = era;
  const writer = new SseWriter(res, maxBufferedBytes === undefined ? exchange.sse : { ...exchange.sse, maxBufferedBytes });
  const stream = new SseStream(crypto.randomUUID(), writer, client, context, () => {
    streams.open.delete(stream.id);
    era.releaseSlot(client); // the one release, whether or not a session took the slot over
  });
  streams.open.set(stream.id, stream);
  res.on("close", () => stream.ended());
  stream.deadline = unrefTimer(setTimeout(() => stream.session === undefined && stream.close(), era.sseInitializeMs));
  // Relative: the client resolves it against the URL it opened, whatever path the endpoint is mounted at.
  writer.write(`event: endpoint\ndata: ?${SSE_SESSION_PARAM}=${stream.id}\n\n`);
}

/** A GET beyond the limits: the client's share is 429 (waiting does not help, closing a stream does), the server's 503. */
function streamRefusal(refusal: SlotRefusal): HttpRejection {
  if (refusal.scope === "client") {
    const message = `This client already holds ${refusal.limit} legacy sessions and event streams, its share of the server; close one before opening another`;
    return { status: 429, body: errorResponse(null, ERROR_CODES.InternalError, message) };
  }
  const message =
    refusal.scope === "server"
      ? `The server has reached its limit of ${refusal.limit} sessions; retry later`
      : "The server is nearly full of sessions; retry later";
  return { status: 503, headers: { "retry-after": "5" }, body: errorResponse(null, ERROR_CODES.InternalError, message) };
}

/** A POST to a stream's URL: its first message opens the session, the rest are served on it; every answer goes on the stream. */
export async function serveSsePost(era: LegacyEra, exchange: LegacyHttpExchange): Promise<void> {
  const { req, res } = exchange;
  const stream = streamsOf(era).open.get(req.query(SSE_SESSION_PARAM)!);
  if (stream === undefined || stream.closed || !samePrincipal(stream.context?.["principal"], exchange.context?.["principal"])) {
    return exchange.reject({
      status: 404,
      body: errorResponse(null, ERROR_CODES.InvalidRequestError, `Unknown or ended ${SSE_SESSION_PARAM}; open a new event stream with GET`),
    });
  }
  if (stream.session !== undefined) {
    const mismatch = versionMismatch(req, stream.session);
    if (mismatch !== undefined) return exchange.reject(mismatch);
  }
  const read = await exchange.readMessage();
  if ("status" in read) return exchange.reject(read);
  const session = stream.session ?? openSession(era, stream, read);
  if (!(session instanceof LegacySession)) return exchange.reject(session);
  era.touched(session);
  if (!("method" in read.message)) {
    // An answer to a request the session sent its client (on the stream); any other is refused.
    return session.answer(read.message) ? answerEmpty(res, 202) : exchange.reject(refuseClientResponse(read.message));
  }
  const message = read.message;
  if ("id" in message && stream.requestsInFlight >= era.sseMaxInFlight) return exchange.reject(inFlightRefusal(message.id, era.sseMaxInFlight));
  let posted: SsePost | undefined;
  await serveInSession(era, exchange, message, session, () => (posted = new SsePost(stream, message, exchange.context, exchange.clientAddress)));
  if (posted === undefined) return; // refused (its scopes): answered already
  if (!("id" in message)) posted.finish(); // a notification needs nothing more of its POST
  if (!res.headersSent) answerEmpty(res, 202);
}

/**
 * A request beyond the session's bound: 429, as the client's own requests hold the room and
 * any answer frees some; the error carries the request's id, so the client can tell which.
 */
function inFlightRefusal(id: RequestId, limit: number): HttpRejection {
  const message = `This session already has ${limit} requests running, its limit; send more once their answers arrive`;
  return { status: 429, headers: { "retry-after": "1" }, body: errorResponse(id, ERROR_CODES.InternalError, message) };
}

/** The stream's first message: an `initialize`, which opens the session the stream is the output of. */
function openSession(era: LegacyEra, stream: SseStream, read: Exclude<Classified, { kind: "invalid" }>): LegacySession | HttpRejection {
  if (read.kind !== "request" || !isLegacyInitialize(read.message)) {
    return { status: 400, body: errorResponse(null, ERROR_CODES.InvalidRequestError, "The first message on this event stream must be initialize") };
  }
  const session = era.open(read.message, stream, false, stream.client, true);
  if (session instanceof LegacySession) {
    stream.session = session;
    clearTimeout(stream.deadline);
    return session;
  }
  // Only an invalid initialize may be sent again: at a limit the stream ends with the refusal.
  if (session.refused !== "invalid") stream.close();
  const status = session.refused === "full" ? 503 : session.refused === "share" ? 429 : statusForErrorCode(session.error.error.code);
  return { status, body: session.error };
}

/** The streams of one era, by id. */
interface SseStreams {
  readonly open: Map<string, SseStream>;
}

const STREAMS = new WeakMap<LegacyEra, SseStreams>();

function streamsOf(era: LegacyEra): SseStreams {
  let streams = STREAMS.get(era);
  if (streams === undefined) {
    const open = new Map<string, SseStream>();
    streams = { open };
    STREAMS.set(era, streams);
    // A closing server ends the streams still waiting for initialize; the others end with their sessions.
    era.onClose(() => {
      for (const stream of [...open.values()]) if (stream.session === undefined) stream.close();
    });
  }
  return streams;
}

/** One GET's event stream: the output of the session its `initialize` opens. */
class SseStream implements SessionOutput {
  session: LegacySession | undefined;
  deadline: ReturnType<typeof setTimeout> | undefined;
  /** The POSTs whose answers are still due on this stream. */
  readonly posts = new Set<SsePost>();
  #ended = false;

  constructor(
    readonly id: string,
    readonly writer: SseWriter,
    readonly client: ClientKey,
    readonly context: MessageContext | undefined,
    readonly onEnded: () => void,
  ) {}

  /** Requests posted here still running (a notification's POST is done once delivered). */
  get requestsInFlight(): number {
    let running = 0;
    for (const post of this.posts) if (post.isRequest) running++;
    return running;
  }

  get closed(): boolean {
    return this.#ended || this.writer.done;
  }

  /** While the stream is open the session has its output (era.ts's idle sweep asks). */
  get attached(): boolean {
    return !this.closed;
  }

  send(message: JsonRpcMessage): void {
    this.write(JSON.stringify(message));
  }

  write(json: string): boolean {
    return this.writer.write(sseFrame(json));
  }

  /** The answer to request `id`: whole however large, or an error it can retry on (writeAnswerFrame). */
  answer(json: string, id: RequestId): void {
    writeAnswerFrame(this.writer, json, id);
  }

  /** The session ended, or never began: the stream ends; `ended` follows from the response's close. */
  close(): void {
    this.writer.end();
  }

  /** The one teardown, whoever ended the stream (the client, the session, an eviction). Idempotent. */
  ended(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.deadline);
    this.writer.destroy();
    this.onEnded();
    const reason = this.writer.eviction === undefined ? "the client closed the event stream" : "the client did not read its event stream";
    for (const post of [...this.posts]) post.streamEnded(reason);
    void this.session?.close("client-gone");
  }
}

/** One POSTed message as a transport: it delivers the message, and what the server sends back goes on the stream. */
class SsePost implements Transport {
  readonly #inbox = new Inbox();
  readonly #requestId: RequestId | undefined;
  readonly isRequest: boolean;
  #finished = false;

  constructor(
    readonly stream: SseStream,
    message: JsonRpcMessage,
    context: MessageContext | undefined,
    readonly peer: string | undefined,
  ) {
    this.#requestId = "method" in message && "id" in message ? message.id : undefined;
    this.isRequest = this.#requestId !== undefined;
    stream.posts.add(this);
    this.#inbox.deliver(context === undefined ? { type: "message", message } : { type: "message", message, context });
  }

  connect(): Promise<void> {
    return SENT;
  }

  sendMessage(message: JsonRpcMessage, json?: string): Promise<void> {
    if (!this.connected()) return Promise.reject(new TransportClosedError("the event stream is closed"));
    const text = json ?? JSON.stringify(message);
    const id = this.#requestId;
    if ("method" in message || !("id" in message) || id === undefined || message.id !== id) {
      this.stream.write(text);
      return SENT;
    }
    this.stream.answer(text, id);
    this.finish();
    return SENT;
  }

  sendNotificationText(json: string): Promise<void> {
    if (!this.connected()) return Promise.reject(new TransportClosedError("the event stream is closed"));
    this.stream.write(json);
    return SENT;
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
    return !this.#finished && !this.stream.closed;
  }

  remoteAddress(): string | undefined {
    return this.peer;
  }

  /** Closing a POST leaves the stream to its session: this message is simply done. */
  async close(): Promise<void> {
    this.finish();
  }

  /** A cancelled request gets no answer (2024-11-05 says nothing more about it). */
  async abandon(): Promise<void> {
    this.finish();
  }

  /** Done: answered, cancelled or a notification. The connection hears "closed" once the current step is over. */
  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.stream.posts.delete(this);
    afterThisStep(() => this.#inbox.deliver({ type: "closed" }));
  }

  /** The stream ended first: the request is cut off, as when an HTTP response is closed by its client. */
  streamEnded(reason: string): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#inbox.deliver({ type: "closed", reason });
  }
}

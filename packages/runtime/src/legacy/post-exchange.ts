/**
 * One POST of a legacy HTTP session as a transport: a lone answer travels as JSON, like
 * any POST's; once the response becomes a stream (a notification ahead of the answer, or
 * the server closing it to make the client poll) it is a resumable stream (resumable.ts)
 * whose events carry ids. A client that loses such a stream is not cancelling: the request
 * keeps running, and the connection ends for the server only once the answer is out (or
 * the session ends).
 */
import type { JsonRpcMessage, RequestId } from "../jsonrpc.js";
import { HttpExchange, type ExchangeOptions } from "../transports/http-exchange.js";
import { afterThisStep, unrefTimer, type HttpResponse } from "../transports/http-io.js";
import type { MessageContext, ReceivedMessage, Transport, TransportCapability, TransportEvent, TransportListener } from "../transport.js";
import type { EraHttpExchange } from "../era.js";
import type { LegacyEra } from "./era.js";
import { streamsOf, type ResumableStream } from "./resumable.js";
import type { LegacySession } from "./session.js";

const SENT: Promise<void> = Promise.resolve();

/**
 * Before 2026-07-28 an error answer travels on 200 like a result: to a session's client a 404
 * says its session is gone (it would start a new one) and a 400 that the POST itself was
 * refused, and either hides the JSON-RPC error from it behind an HTTP one.
 */
const LEGACY_ERROR_STATUS = () => 200;

export class LegacyPostExchange implements Transport {
  readonly #res: HttpResponse;
  readonly #inner: HttpExchange;
  readonly #session: LegacySession;
  readonly #era: LegacyEra;
  readonly #options: ExchangeOptions;
  readonly #requestId: RequestId | undefined;
  #stream: ResumableStream | undefined;
  #listener: TransportListener | undefined;
  #closedDelivered = false;
  #pollTimer: NodeJS.Timeout | undefined;

  constructor(
    res: HttpResponse,
    message: JsonRpcMessage,
    context: MessageContext | undefined,
    clientAddress: string | undefined,
    options: ExchangeOptions,
    session: LegacySession,
    era: LegacyEra,
  ) {
    this.#res = res;
    this.#session = session;
    this.#era = era;
    this.#options = options;
    this.#requestId = "method" in message && "id" in message ? message.id : undefined;
    this.#inner = new HttpExchange(res, message, context, clientAddress, options, LEGACY_ERROR_STATUS);
    const { pollAfterMs } = era.resume;
    if (this.#requestId !== undefined && pollAfterMs > 0) this.#pollTimer = unrefTimer(setTimeout(() => this.closeStream(), pollAfterMs));
  }

  connect(): Promise<void> {
    return this.#inner.connect();
  }

  sendMessage(message: JsonRpcMessage, json?: string): Promise<void> {
    const isFinal = !("method" in message) && "id" in message && message.id === this.#requestId;
    if (isFinal) clearTimeout(this.#pollTimer);
    if (this.#stream === undefined && (isFinal || this.#res.headersSent || this.#res.destroyed)) return this.#inner.sendMessage(message, json);
    const stream = this.#openStream();
    if (stream.finished) return SENT;
    const encoded = json ?? JSON.stringify(message);
    if (isFinal) stream.finish(encoded);
    else stream.send(encoded);
    return SENT;
  }

  /** Closes the connection without ending the stream (priming it first when it is not one yet); false when the answer is already out. */
  closeStream(): boolean {
    if (this.#requestId === undefined) return false;
    if (this.#stream === undefined && (this.#res.headersSent || this.#res.destroyed)) return false;
    return this.#openStream().poll();
  }

  receiveMessage(): Promise<ReceivedMessage> {
    return this.#inner.receiveMessage();
  }

  subscribe(listener: TransportListener): void {
    this.#listener = listener;
    this.#inner.subscribe((event) => this.#onInnerEvent(event));
  }

  capabilities(): readonly TransportCapability[] {
    return this.#inner.capabilities();
  }

  connected(): boolean {
    if (this.#stream === undefined) return this.#inner.connected();
    return !this.#stream.finished && !this.#session.closed;
  }

  remoteAddress(): string | undefined {
    return this.#inner.remoteAddress();
  }

  async close(): Promise<void> {
    clearTimeout(this.#pollTimer);
    if (this.#stream === undefined) return this.#inner.close();
    this.#stream.close();
  }

  /** The client cancelled the request: nothing answers it (an event stream with no answer in it). */
  async abandon(): Promise<void> {
    clearTimeout(this.#pollTimer);
    if (this.#stream === undefined) return this.#inner.abandon();
    this.#stream.close();
  }

  #openStream(): ResumableStream {
    if (this.#stream !== undefined) return this.#stream;
    const stream = streamsOf(this.#session, this.#era.resume).openPost(() => this.#streamEnded());
    this.#stream = stream;
    const { maxBufferedBytes } = this.#era;
    // The session's own cap, made only when the answer becomes a stream (most are plain JSON).
    stream.attach(this.#res, maxBufferedBytes === undefined ? this.#options : { ...this.#options, maxBufferedBytes });
    return stream;
  }

  /** The response's own close: passed on, unless it only ended a connection of a stream that goes on. */
  #onInnerEvent(event: TransportEvent): void {
    if (event.type === "closed") {
      if (this.#stream !== undefined && !this.#stream.finished) return;
      if (this.#closedDelivered) return;
      this.#closedDelivered = true;
    }
    this.#listener?.(event);
  }

  /** The stream is over: once its last connection is gone too, the server forgets this exchange. */
  #streamEnded(): void {
    clearTimeout(this.#pollTimer);
    if (!this.#res.destroyed && !this.#res.writableFinished) return; // the response's own close follows
    afterThisStep(() => this.#onInnerEvent({ type: "closed" }));
  }
}

/**
 * Serves one message of `session` once its scopes are checked (a refusal answers the
 * request): as a POST exchange, or through the transport `through` makes (an HTTP+SSE post).
 */
export function serveInSession(
  era: LegacyEra,
  exchange: EraHttpExchange,
  message: JsonRpcMessage,
  session: LegacySession,
  through?: () => Transport,
): Promise<void> {
  // The session's negotiated capabilities, not the message's `_meta`, decide what a URI resolves to.
  const forbidden = exchange.forbidden(message, session.meta, session.context?.["principal"]);
  if (forbidden !== undefined) return Promise.resolve(exchange.reject(forbidden));
  const transport = through?.() ?? new LegacyPostExchange(exchange.res, message, exchange.context, exchange.clientAddress, exchange.sse, session, era);
  return era.host.connect(transport, session);
}

/**
 * One POST of Streamable HTTP as a transport (`HttpExchange`): the server core serves it
 * with `server.connect`, and the response is JSON for a lone answer and SSE as soon as
 * anything comes before the answer (progress, logs, or a whole `subscriptions/listen`
 * stream). Closing the response from the client side is an outside teardown.
 */
import { errorResponse, type JsonRpcMessage, type RequestId } from "../jsonrpc.js";
import { ERROR_CODES } from "../protocol.js";
import {
  SENT,
  SlowConsumerEvicted,
  TransportClosedError,
  type MessageContext,
  type ReceivedMessage,
  type SharedText,
  type Transport,
  type TransportCapability,
  type TransportListener,
} from "../transport.js";
import { Inbox } from "./inbox.js";
import { statusForErrorCode, writeRejection } from "./http-request.js";
import { SseWriter, writeAnswerFrame, type Eviction, type SseOptions } from "./http-sse.js";
import { SHARED_FRAME_MIN_CHARS, sharedFrame, sseFrame } from "./sse-frames.js";
import { utf8Length, type HttpResponse } from "./http-io.js";

/** How one SSE response went, reported when it is over (slow consumers show up here). */
export interface SseStreamReport {
  readonly requestId: RequestId | undefined;
  /** The most bytes the stream held at once: Node's buffer plus frames waiting to be written. */
  readonly peakBufferedBytes: number;
  /** Frames dropped because an identical one was already waiting (the client was slow). */
  readonly coalescedFrames: number;
  /** Whether the stream was ended because the client did not keep up. */
  readonly overflowed: boolean;
  /** Which limit ended it, when it was evicted. */
  readonly eviction?: Eviction | undefined;
}

/** What one exchange takes from its handler's options: the SSE limits and two observers. */
export interface ExchangeOptions extends SseOptions {
  /** Called with errors that have no client to go to (a failed write, a broken handler). */
  readonly onError?: (error: unknown) => void;
  /** Called once per SSE response when it is over, however it ended. */
  readonly onStreamEnd?: (report: SseStreamReport) => void;
}

/**
 * One POST as a transport: it delivers the one message it carries, then writes what the
 * server sends back (JSON for a lone answer, SSE otherwise) and delivers "closed" exactly
 * once when the response is over, whether the server ended it or the client went away.
 */
export class HttpExchange implements Transport {
  readonly #res: HttpResponse;
  readonly #inbox = new Inbox();
  readonly #requestId: RequestId | undefined;
  readonly #options: ExchangeOptions;
  readonly #errorStatus: (code: number) => number;
  readonly #clientAddress: string | undefined;
  #writer: SseWriter | undefined;
  #ended = false;

  /**
   * `errorStatus` gives the HTTP status of an error answer sent as JSON: the one 2026-07-28
   * pins for its code unless the caller speaks an earlier revision (legacy/post-exchange.ts).
   * `clientAddress` is the client's address as the endpoint found it (its peer, or what a
   * trusted proxy says), the key of its per-client shares when no principal is known.
   */
  constructor(
    res: HttpResponse,
    message: JsonRpcMessage,
    context: MessageContext | undefined,
    clientAddress: string | undefined,
    options: ExchangeOptions = {},
    errorStatus: (code: number) => number = statusForErrorCode,
  ) {
    this.#res = res;
    this.#errorStatus = errorStatus;
    this.#options = options;
    this.#clientAddress = clientAddress;
    this.#requestId = "method" in message && "id" in message ? message.id : undefined;
    // "close" fires once; `on` spares the once-wrapper, an inline arrow a named closure.
    res.on("close", () => this.#onClose());
    this.#inbox.deliver(context === undefined ? { type: "message", message } : { type: "message", message, context });
  }

  /** The SSE writer once the response became a stream (for metrics and tests). */
  get stream(): SseWriter | undefined {
    return this.#writer;
  }

  /** Nothing to wait for: the shared settled promise (one POST, one call). */
  connect(): Promise<void> {
    return SENT;
  }

  /** Not `async`: on the per-notification path a shared settled promise saves an allocation. */
  sendMessage(message: JsonRpcMessage, encoded?: string): Promise<void> {
    if (!this.connected()) return Promise.reject(new TransportClosedError("the HTTP response is closed"));
    const isFinal = !("method" in message) && "id" in message && message.id === this.#requestId;
    if (isFinal) this.#ended = true;
    const json = encoded ?? JSON.stringify(message);
    if (isFinal && this.#writer === undefined) {
      const status = "error" in message ? this.#errorStatus(message.error.code) : 200;
      this.#res.writeHead(status, { "content-type": "application/json", "content-length": utf8Length(json) });
      this.#res.end(json);
      return SENT;
    }
    this.#writer ??= new SseWriter(this.#res, this.#options);
    if (isFinal) {
      writeAnswerFrame(this.#writer, json, this.#requestId as RequestId); // whole, as JSON would have carried it
      this.#writer.end();
    } else this.#writer.write(sseFrame(json));
    return SENT;
  }

  /** A stream notification's text: always a frame of the SSE stream, never the final answer. */
  sendNotificationText(json: string, shared?: SharedText, idJson?: string): Promise<void> {
    if (!this.connected()) return Promise.reject(new TransportClosedError("the HTTP response is closed"));
    const writer = (this.#writer ??= new SseWriter(this.#res, this.#options));
    if (shared !== undefined && idJson !== undefined && json.length >= SHARED_FRAME_MIN_CHARS) writer.writeShared(sharedFrame(shared), idJson, json);
    else writer.write(sseFrame(json));
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
    return !this.#ended && !this.#res.destroyed && !this.#res.writableEnded;
  }

  remoteAddress(): string | undefined {
    return this.#clientAddress;
  }

  /** Ends the response from the server side: a stream is ended, an unanswered request gets 503. */
  async close(): Promise<void> {
    if (this.#res.writableEnded || this.#res.destroyed) return;
    this.#ended = true;
    if (this.#writer !== undefined) this.#writer.end();
    else if (!this.#res.headersSent)
      writeRejection(this.#res, { status: 503, body: errorResponse(this.#requestId ?? null, ERROR_CODES.InternalError, "server is shutting down") });
    else this.#res.end();
  }

  /** The request was cancelled: the response becomes an event stream that ends with no answer in it. */
  async abandon(): Promise<void> {
    if (this.#res.writableEnded || this.#res.destroyed) return;
    this.#ended = true;
    (this.#writer ??= new SseWriter(this.#res, this.#options)).end();
  }

  #onClose(): void {
    const abrupt = !this.#res.writableFinished;
    this.#ended = true;
    const writer = this.#writer;
    if (writer !== undefined) {
      writer.destroy();
      const { peakBufferedBytes, coalescedFrames, overflowed, eviction } = writer;
      try {
        this.#options.onStreamEnd?.({ requestId: this.#requestId, peakBufferedBytes, coalescedFrames, overflowed, eviction });
      } catch (error) {
        this.#options.onError?.(error); // an observer's failure must not break the teardown
      }
    }
    const reason = writer?.eviction !== undefined ? new SlowConsumerEvicted() : abrupt ? "client closed the response" : undefined;
    this.#inbox.deliver(reason === undefined ? { type: "closed" } : { type: "closed", reason });
  }
}

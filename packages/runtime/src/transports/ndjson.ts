/**
 * Newline-delimited JSON over any pair of byte streams: one message per line, UTF-8,
 * no embedded newlines (JSON.stringify never emits one). This is the stdio framing, and
 * it works as well over a socket or a child process's pipes.
 */
import type { Duplex, Readable, Writable } from "node:stream";
import type { JsonRpcMessage } from "../jsonrpc.js";
import {
  SENT,
  SlowConsumerEvicted,
  TransportClosedError,
  type MessageContext,
  type ReceivedMessage,
  type Transport,
  type TransportCapability,
  type TransportListener,
} from "../transport.js";
import { Inbox } from "./inbox.js";
import { LineSplitter } from "./lines.js";

export interface NdjsonOptions {
  /** Attached to every received message (merged into `channel.meta` by the server). */
  context?: MessageContext;
  /** A longer line (in UTF-16 characters) is dropped with an "error" event; default 16 Mi. */
  maxLineLength?: number | undefined;
  /**
   * After input EOF, how long answers still due may take before the transport closes
   * itself (requests still running are then aborted). Default 0: close at once, as a
   * socket's writable side usually ends with its readable side; stdio sets 5000 ms.
   */
  drainTimeoutMs?: number;
  /** End the output stream on close(); default true (stdio keeps process.stdout open). */
  endOutputOnClose?: boolean;
  /**
   * Output bytes waiting to be written (the output's `writableLength`) past which the
   * transport stops reading input until the output drains. Default 1 MiB; never below the
   * output's own high-water mark, so that a drain always follows.
   */
  highWaterBytes?: number | undefined;
  /**
   * Output bytes waiting past which the peer, which is not reading, is cut off at the next
   * write (one answer is always written whole, however large): the transport reports a `SlowConsumerEvicted` error naming the bound, then closes (a
   * stream it owns is destroyed, releasing what it held). Default 16 MiB.
   */
  maxBufferedBytes?: number | undefined;
}

const PUSH: readonly TransportCapability[] = Object.freeze(["push"]);
export const DEFAULT_MAX_LINE = 16 * 1024 * 1024;
/** Output waiting past which input is no longer read until the output drains. */
export const DEFAULT_NDJSON_HIGH_WATER_BYTES = 1024 * 1024;
/** Output waiting past which a peer that does not read is cut off. */
export const DEFAULT_NDJSON_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export class NdjsonTransport implements Transport {
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #options: NdjsonOptions;
  readonly #inbox = new Inbox();
  readonly #lines: LineSplitter;
  #drainTimer: NodeJS.Timeout | undefined;
  /** Set while the output is over its high-water mark: resolves (and input resumes) at its drain. */
  #drained: Promise<void> | undefined;
  #inputPaused = false;
  #started = false;
  #closed = false;

  constructor(stream: Duplex | { readable: Readable; writable: Writable }, options: NdjsonOptions = {}) {
    const pair = "readable" in stream && typeof stream.readable === "object" ? stream : undefined;
    this.#input = pair ? (pair as { readable: Readable }).readable : (stream as Duplex);
    this.#output = pair ? (pair as { writable: Writable }).writable : (stream as Duplex);
    this.#options = options;
    this.#lines = new LineSplitter(options.maxLineLength ?? DEFAULT_MAX_LINE);
  }

  async connect(): Promise<void> {
    if (this.#closed) throw new TransportClosedError();
    if (this.#started) return;
    this.#started = true;
    this.#input.setEncoding("utf8");
    this.#input.on("data", this.#onData);
    this.#input.on("end", this.#onEnd);
    this.#input.on("error", this.#onError);
    this.#output.on("error", this.#onError);
  }

  sendMessage(message: JsonRpcMessage, json?: string): Promise<void> {
    if (this.#closed || this.#output.destroyed || this.#output.writableEnded) {
      return Promise.reject(new TransportClosedError());
    }
    // What the peer has not taken yet: past the hard bound it is cut off, instead of this write.
    const backlog = this.#output.writableLength;
    const max = this.#options.maxBufferedBytes ?? DEFAULT_NDJSON_MAX_BUFFERED_BYTES;
    if (backlog > max) {
      this.#cutOff(new SlowConsumerEvicted(`the peer did not read its output: ${backlog} bytes waiting, over maxBufferedBytes ${max}; cut off`));
      return SENT;
    }
    // At most one serialisation per message, written in call order.
    const flushed = this.#output.write((json ?? JSON.stringify(message)) + "\n");
    if (flushed) return SENT;
    return this.#backpressure();
  }

  /**
   * The output took a write over its high-water mark. Past `highWaterBytes` input stops
   * being read, so a peer that sends requests without reading their answers gets no more
   * served than the output holds until it drains (a single answer larger than the mark is
   * still written whole). Every write waiting for the same drain shares one promise.
   */
  #backpressure(): Promise<void> {
    const waiting = this.#output.writableLength;
    const highWater = Math.max(this.#options.highWaterBytes ?? DEFAULT_NDJSON_HIGH_WATER_BYTES, this.#output.writableHighWaterMark);
    if (waiting >= highWater && !this.#inputPaused) {
      this.#inputPaused = true;
      this.#input.pause();
    }
    return (this.#drained ??= new Promise((resolve) => this.#output.once("drain", () => this.#onDrain(resolve))));
  }

  #onDrain(resolve: () => void): void {
    this.#drained = undefined;
    if (this.#inputPaused && !this.#closed) {
      this.#inputPaused = false;
      this.#input.resume();
    }
    resolve();
  }

  /** The peer is not reading: reported, then the transport closes and drops what it holds. */
  #cutOff(error: SlowConsumerEvicted): void {
    if (this.#closed) return;
    this.#inbox.deliver({ type: "error", error });
    this.#input.pause();
    if (this.#options.endOutputOnClose !== false) {
      this.#output.destroy();
      this.#input.destroy();
    }
    this.#finish(error);
  }

  receiveMessage(): Promise<ReceivedMessage> {
    return this.#inbox.next();
  }

  subscribe(listener: TransportListener): void {
    this.#inbox.subscribe(listener);
  }

  capabilities(): readonly TransportCapability[] {
    return PUSH;
  }

  connected(): boolean {
    return !this.#closed;
  }

  async close(): Promise<void> {
    this.#close("closed locally");
  }

  #close(reason: string): void {
    if (this.#closed) return;
    if (this.#options.endOutputOnClose !== false && !this.#output.writableEnded) this.#output.end();
    this.#finish(reason);
  }

  /** Every way of closing ends here, once: no more input, the subclass releases what it holds, the receiver is told. */
  #finish(reason: unknown): void {
    this.#closed = true;
    clearTimeout(this.#drainTimer);
    this.#detach();
    this.released();
    this.#inbox.deliver({ type: "closed", reason });
  }

  /** Called once as the transport closes, however it closes; a subclass undoes here what it set up. */
  protected released(): void {}

  readonly #onData = (chunk: string): void => {
    this.#lines.push(chunk, this.#onLine, this.#onTooLong);
  };

  readonly #onLine = (line: string): void => this.#deliverLine(line);

  readonly #onTooLong = (): void => {
    const error = new Error(`dropped an input line longer than ${this.#lines.maxLineLength} characters`);
    this.#inbox.deliver({ type: "error", error });
  };

  /**
   * The peer sent its last message, but answers may still be due: the output stays open,
   * the receiver is told ("input-ended") and closes the transport when it is done; if it
   * does not within `drainTimeoutMs`, the transport closes itself.
   */
  readonly #onEnd = (): void => {
    const last = this.#lines.end();
    if (last !== undefined) this.#deliverLine(last);
    this.#detach();
    this.#inbox.deliver({ type: "input-ended" });
    const drainTimeoutMs = this.#options.drainTimeoutMs ?? 0;
    if (this.#closed) return;
    if (drainTimeoutMs <= 0) return this.#close("input ended");
    this.#drainTimer = setTimeout(() => this.#close(`input ended; answers still due after ${drainTimeoutMs} ms were dropped`), drainTimeoutMs);
    this.#drainTimer.unref(); // the bound must not by itself keep the process alive
  };

  readonly #onError = (error: unknown): void => {
    this.#inbox.deliver({ type: "error", error });
    if (!this.#closed) this.#finish(error);
  };

  #deliverLine(line: string): void {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (text.trim().length === 0) return;
    const context = this.#options.context;
    this.#inbox.deliver(context === undefined ? { type: "message", message: text } : { type: "message", message: text, context });
  }

  #detach(): void {
    this.#input.off("data", this.#onData);
    this.#input.off("end", this.#onEnd);
  }
}

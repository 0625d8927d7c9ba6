/**
 * Newline-delimited JSON over any pair of byte streams: one message per line, UTF-8,
 * no embedded newlines (JSON.stringify never emits one). This is the stdio framing, and
 * it works as well over a socket or a child process's pipes.
 */
import type { Duplex, Readable, Writable } from "node:stream";
import type { JsonRpcMessage } from "../jsonrpc.js";
import {
  TransportClosedError,
  type MessageContext,
  type ReceivedMessage,
  type Transport,
  type TransportCapability,
  type TransportListener,
} from "../transport.js";
import { Inbox } from "./inbox.js";

export interface NdjsonOptions {
  /** Attached to every received message (merged into `channel.meta` by the server). */
  context?: MessageContext;
  /** A longer line is dropped with an "error" event; default 16 MiB. */
  maxLineLength?: number;
  /** End the output stream on close(); default true (stdio keeps process.stdout open). */
  endOutputOnClose?: boolean;
}

const PUSH: readonly TransportCapability[] = Object.freeze(["push"]);
const DEFAULT_MAX_LINE = 16 * 1024 * 1024;

export class NdjsonTransport implements Transport {
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #options: NdjsonOptions;
  readonly #inbox = new Inbox();
  #pending = "";
  #discarding = false;
  #started = false;
  #closed = false;

  constructor(stream: Duplex | { readable: Readable; writable: Writable }, options: NdjsonOptions = {}) {
    const pair = "readable" in stream && typeof stream.readable === "object" ? stream : undefined;
    this.#input = pair ? (pair as { readable: Readable }).readable : (stream as Duplex);
    this.#output = pair ? (pair as { writable: Writable }).writable : (stream as Duplex);
    this.#options = options;
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
    // At most one serialisation per message, written in call order.
    const flushed = this.#output.write((json ?? JSON.stringify(message)) + "\n");
    if (flushed) return Promise.resolve();
    return new Promise((resolve) => this.#output.once("drain", resolve));
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
    if (this.#closed) return;
    this.#closed = true;
    this.#detach();
    if (this.#options.endOutputOnClose !== false && !this.#output.writableEnded) this.#output.end();
    this.#inbox.deliver({ type: "closed", reason: "closed locally" });
  }

  readonly #onData = (chunk: string): void => {
    let text = this.#pending + chunk;
    if (this.#discarding) {
      // The rest of an over-long line: skip to its end.
      const end = text.indexOf("\n");
      if (end === -1) return;
      this.#discarding = false;
      text = text.slice(end + 1);
    }
    let newline = text.indexOf("\n");
    while (newline !== -1) {
      this.#deliverLine(text.slice(0, newline));
      text = text.slice(newline + 1);
      newline = text.indexOf("\n");
    }
    const limit = this.#options.maxLineLength ?? DEFAULT_MAX_LINE;
    if (text.length > limit) {
      this.#inbox.deliver({ type: "error", error: new Error(`dropped an input line longer than ${limit} characters`) });
      this.#discarding = true;
      text = "";
    }
    this.#pending = text;
  };

  readonly #onEnd = (): void => {
    if (this.#pending.length > 0) this.#deliverLine(this.#pending);
    this.#pending = "";
    this.#closed = true;
    this.#detach();
    this.#inbox.deliver({ type: "closed", reason: "input ended" });
  };

  readonly #onError = (error: unknown): void => {
    this.#inbox.deliver({ type: "error", error });
    if (!this.#closed) {
      this.#closed = true;
      this.#detach();
      this.#inbox.deliver({ type: "closed", reason: error });
    }
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

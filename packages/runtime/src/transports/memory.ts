/**
 * In-memory transport pairs. `test` JSON-encodes every message, exactly like a wire, so
 * tests exercise decoding; `inprocess` passes the message objects themselves (the
 * receiver must treat them as read-only). Delivery is asynchronous (a microtask), in
 * order, so a send never re-enters the receiver's code.
 */
import type { JsonRpcMessage } from "../jsonrpc.js";
import {
  registerTransport,
  SENT,
  TransportClosedError,
  type MessageContext,
  type ReceivedMessage,
  type Transport,
  type TransportCapability,
  type TransportListener,
} from "../transport.js";
import { Inbox } from "./inbox.js";

export interface MemoryPairOptions {
  /** Attached to every message the server end receives, e.g. `{ principal: "alice" }`. */
  serverContext?: MessageContext;
}

export interface TransportPair<T extends Transport = Transport> {
  client: T;
  server: T;
}

const PUSH: readonly TransportCapability[] = Object.freeze(["push"]);

abstract class MemoryTransport implements Transport {
  readonly inbox = new Inbox();
  peer: MemoryTransport | undefined;
  context: MessageContext | undefined;
  #closed = false;

  protected abstract encode(message: JsonRpcMessage, json: string | undefined): JsonRpcMessage | string;

  async connect(): Promise<void> {
    if (this.#closed) throw new TransportClosedError();
  }

  sendMessage(message: JsonRpcMessage, json?: string): Promise<void> {
    const peer = this.peer;
    if (this.#closed || peer === undefined || peer.#closed) return Promise.reject(new TransportClosedError());
    const event: ReceivedMessage =
      peer.context === undefined
        ? { type: "message", message: this.encode(message, json) }
        : { type: "message", message: this.encode(message, json), context: peer.context };
    queueMicrotask(() => peer.inbox.deliver(event));
    return SENT;
  }

  receiveMessage(): Promise<ReceivedMessage> {
    return this.inbox.next();
  }

  subscribe(listener: TransportListener): void {
    this.inbox.subscribe(listener);
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
    const peer = this.peer;
    // Queued behind any message already in flight, so the peer reads those first.
    queueMicrotask(() => {
      this.inbox.deliver({ type: "closed", reason: "closed locally" });
      peer?.inbox.deliver({ type: "closed", reason: "closed by peer" });
    });
  }
}

/** The `test` transport: JSON text between the two ends. */
export class TestTransport extends MemoryTransport {
  protected encode(message: JsonRpcMessage, json: string | undefined): string {
    return json ?? JSON.stringify(message);
  }
}

/** The `inprocess` transport: message objects, no encoding. */
export class InProcessTransport extends MemoryTransport {
  protected encode(message: JsonRpcMessage): JsonRpcMessage {
    return message;
  }
}

function link<T extends MemoryTransport>(client: T, server: T, options: MemoryPairOptions): TransportPair<T> {
  client.peer = server;
  server.peer = client;
  server.context = options.serverContext;
  return { client, server };
}

export function createTestTransportPair(options: MemoryPairOptions = {}): TransportPair<TestTransport> {
  return link(new TestTransport(), new TestTransport(), options);
}

export function createInProcessTransportPair(options: MemoryPairOptions = {}): TransportPair<InProcessTransport> {
  return link(new InProcessTransport(), new InProcessTransport(), options);
}

registerTransport("test", TestTransport);
registerTransport("inprocess", InProcessTransport);

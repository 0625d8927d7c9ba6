/**
 * A bare JSON-RPC peer for runtime tests: it sends requests with the per-request `_meta`
 * and records every message the server writes, so a test can assert on the exact wire
 * order. Waits are bounded (they fail instead of hanging) but never assert on time.
 */
import { type JsonRpcMessage, type RequestId, type Server } from "../../packages/runtime/src/index.js";
import {
  createInProcessTransportPair,
  createTestTransportPair,
  parseMessage,
  type MessageContext,
  type Transport,
} from "../../packages/runtime/src/transports/index.js";
import { PROTOCOL_VERSION } from "../../packages/runtime/src/protocol.js";

/** The revision the runtime source is bound to (the newest this repository lists with a runtime). */
export { PROTOCOL_VERSION };
export const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
export const REQUEST_META = Object.freeze({
  "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
});

export type MemoryKind = "test" | "inprocess";
export const MEMORY_KINDS: readonly MemoryKind[] = ["test", "inprocess"];

/** How long a wait may last before it fails (a bound against hangs, not an assertion). */
const WAIT_LIMIT_MS = 10_000;

type Message = JsonRpcMessage & { id?: RequestId; method?: string; params?: any; result?: any; error?: any };

export class Peer {
  readonly messages: Message[] = [];
  closed = false;
  #nextId = 1;
  readonly #wakers = new Set<() => void>();

  constructor(readonly transport: Transport) {
    transport.subscribe!((event) => {
      if (event.type === "message") this.messages.push(parseMessage(event.message) as Message);
      else if (event.type === "closed") this.closed = true;
      for (const wake of this.#wakers) wake();
    });
  }

  /** A server connected over an in-memory pair of the given kind, and a peer on the other end. */
  static async connect(server: Server, kind: MemoryKind, context?: MessageContext): Promise<Peer> {
    const options = context === undefined ? {} : { serverContext: context };
    const pair = kind === "test" ? createTestTransportPair(options) : createInProcessTransportPair(options);
    await server.connect(pair.server);
    const peer = new Peer(pair.client);
    await pair.client.connect();
    return peer;
  }

  /** Sends a request (with the standard `_meta` unless `params._meta` is given) and returns its id. */
  send(method: string, params: Record<string, unknown> = {}, id: RequestId = this.#nextId++): RequestId {
    void this.transport.sendMessage({ jsonrpc: "2.0", id, method, params: { _meta: REQUEST_META, ...params } });
    return id;
  }

  /** Sends a request and waits for its response. */
  async request(method: string, params: Record<string, unknown> = {}, id?: RequestId): Promise<Message> {
    const sent = this.send(method, params, id);
    return this.response(sent);
  }

  notify(method: string, params: Record<string, unknown>): void {
    void this.transport.sendMessage({ jsonrpc: "2.0", method, params });
  }

  response(id: RequestId): Promise<Message> {
    return this.waitFor((m) => m.id === id && m.method === undefined, `the response to ${String(id)}`);
  }

  /** Messages carrying this subscription id (notifications) or answering it (the result). */
  stream(id: RequestId): Message[] {
    return this.messages.filter((m) => m.params?._meta?.[SUBSCRIPTION_ID] === id || (m.id === id && m.method === undefined));
  }

  /** Waits for the first message matching `match` (already received or later). */
  async waitFor(match: (m: Message) => boolean, what: string): Promise<Message> {
    const giveUpAt = Date.now() + WAIT_LIMIT_MS;
    while (Date.now() < giveUpAt) {
      const found = this.messages.find(match);
      if (found !== undefined) return found;
      if (this.closed) break;
      await this.#wake();
    }
    throw new Error(`never received ${what}; got ${JSON.stringify(this.messages)}`);
  }

  async waitClosed(): Promise<void> {
    const giveUpAt = Date.now() + WAIT_LIMIT_MS;
    while (!this.closed && Date.now() < giveUpAt) await this.#wake();
    if (!this.closed) throw new Error("the transport never closed");
  }

  /** A round trip: everything the server wrote before answering it has arrived. */
  async sync(): Promise<void> {
    await this.request("server/discover");
  }

  #wake(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, 250);
      function done() {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      }
      const wakers = this.#wakers;
      wakers.add(done);
    });
  }
}

/** A promise with its resolver, for handlers that report what happened to them. */
export function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Waits (bounded) until `condition()` holds; for effects that write nothing to the wire. */
export async function until(condition: () => boolean, what: string): Promise<void> {
  const giveUpAt = Date.now() + WAIT_LIMIT_MS;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error(`gave up waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/**
 * A small JSON-RPC client over any runtime transport, enough to drive the server in
 * tests: requests matched to responses by id, notifications collected in order.
 */
import { META_KEYS, PROTOCOL_VERSION } from "../src/generated/v2607/capabilities.js";
import type { JsonRpcMessage, Transport } from "../src/generated/v2607/runtime/index.js";

type Message = Record<string, any>;

export class TestClient {
  readonly notifications: Message[] = [];
  readonly #pending = new Map<string | number, (message: Message) => void>();
  readonly #waiters: Array<{ match: (n: Message) => boolean; resolve: (n: Message) => void }> = [];
  #nextId = 1;

  constructor(readonly transport: Transport) {}

  async connect(): Promise<void> {
    await this.transport.connect();
    void this.#pump();
  }

  /** The `_meta` every 2026-07-28 request carries. */
  static meta(): Record<string, unknown> {
    return {
      [META_KEYS.protocolVersion]: PROTOCOL_VERSION,
      [META_KEYS.clientInfo]: { name: "test-client", version: "0.0.0" },
      [META_KEYS.clientCapabilities]: {},
    };
  }

  /** Sends a request and resolves with its whole response (result or error). */
  request(
    method: string,
    params: Record<string, unknown> = {},
    id: string | number = this.#nextId++,
  ): Promise<Message> {
    const response = new Promise<Message>((resolve) => this.#pending.set(id, resolve));
    const message = { jsonrpc: "2.0", id, method, params: { ...params, _meta: TestClient.meta() } };
    void this.transport.sendMessage(message as JsonRpcMessage);
    return response;
  }

  /** Sends a notification, such as `notifications/cancelled`. */
  notify(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const message = { jsonrpc: "2.0", method, params: { ...params, _meta: TestClient.meta() } };
    return this.transport.sendMessage(message as JsonRpcMessage);
  }

  /** Resolves with the first notification (already received or still to come) that matches. */
  notification(match: (notification: Message) => boolean): Promise<Message> {
    const seen = this.notifications.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  async #pump(): Promise<void> {
    for (;;) {
      let received;
      try {
        received = await this.transport.receiveMessage();
      } catch {
        return; // closed
      }
      const message = (
        typeof received.message === "string" ? JSON.parse(received.message) : received.message
      ) as Message;
      if ("id" in message && !("method" in message)) {
        this.#pending.get(message.id)?.(message);
        this.#pending.delete(message.id);
        continue;
      }
      this.notifications.push(message);
      for (const waiter of [...this.#waiters]) {
        if (!waiter.match(message)) continue;
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  }
}

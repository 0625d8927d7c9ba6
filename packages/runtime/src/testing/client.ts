/**
 * A typed MCP client for tests: method names, params and results come from the generated
 * `ClientRequests` map, notifications from `ServerNotifications`. It speaks over any runtime
 * transport (usually one end of `createTestTransportPair()`), matches responses to requests
 * by id, keeps every notification in arrival order, and opens listen streams whose
 * notifications it sorts by subscription id. Every wait is bounded (`timeoutMs`), so a
 * missing message fails the test with a message instead of hanging it.
 */
import { McpError, type JsonRpcMessage, type JsonRpcResponse, type RequestId } from "../jsonrpc.js";
import {
  META_KEYS,
  PROTOCOL_VERSION,
  type ClientNotificationMethod,
  type ClientNotifications,
  type ClientRequestMethod,
  type ClientRequests,
  type ServerNotificationMethod,
  type ServerNotifications,
  type SubscriptionFilter,
} from "../protocol.js";
import type { Transport } from "../transport.js";
import { createTestTransportPair, type MemoryPairOptions } from "../transports/memory.js";

/** A request's params without the `_meta` the client adds (which may still be extended). */
export type ParamsOf<M extends ClientRequestMethod> = Omit<ClientRequests[M]["params"], "_meta"> & { _meta?: Record<string, unknown> };
export type ResultOf<M extends ClientRequestMethod> = ClientRequests[M]["result"];
/** Any notification the server may send. */
export type AnyServerNotification = ServerNotifications[ServerNotificationMethod];

export interface RequestOptions {
  /** The JSON-RPC id; by default the next number. */
  id?: RequestId;
}

/** Params may be left out for methods whose params have no required field. */
type ParamsArgs<M extends ClientRequestMethod> =
  {} extends ParamsOf<M> ? [params?: ParamsOf<M>, options?: RequestOptions] : [params: ParamsOf<M>, options?: RequestOptions];

export interface TestClientOptions {
  /** How long a request, a listen acknowledgement or an awaited notification may take; default 10 s. */
  timeoutMs?: number;
  /** Sent as `io.modelcontextprotocol/clientInfo`. */
  clientInfo?: { name: string; version: string };
  /** Sent as `io.modelcontextprotocol/clientCapabilities` on every request (default `{}`), e.g. the extensions it declares. */
  clientCapabilities?: Record<string, unknown>;
}

/** An open `subscriptions/listen` stream, acknowledged by the server. */
export interface ListenStream {
  readonly id: RequestId;
  /** What the server honoured, from its acknowledgement. */
  readonly honored: SubscriptionFilter;
  /** The stream's notifications so far (acknowledgement excluded), in arrival order. */
  readonly received: readonly AnyServerNotification[];
  /** The first notification of this stream with `method` not yet taken by `next`, waiting for it if needed. */
  next<M extends ServerNotificationMethod>(method: M): Promise<ServerNotifications[M]>;
  /** The listen request's own result: the stream has ended. */
  readonly result: Promise<ResultOf<"subscriptions/listen">>;
  /** Cancels the listen request (`notifications/cancelled`). */
  cancel(reason?: string): Promise<void>;
}

interface Waiter {
  match: (message: AnyServerNotification) => boolean;
  resolve: (message: AnyServerNotification) => void;
}

export class TestClient {
  /** Every notification received, in order. */
  readonly notifications: AnyServerNotification[] = [];
  readonly #transport: Transport;
  readonly #timeoutMs: number;
  readonly #clientInfo: { name: string; version: string };
  readonly #clientCapabilities: Record<string, unknown>;
  readonly #pending = new Map<RequestId, (response: JsonRpcResponse) => void>();
  readonly #waiters: Waiter[] = [];
  /**
   * Rejects once the transport closed: whatever still waits (a listen stream's result, a
   * notification) fails then, instead of holding its timer, and the test's process, open
   * until `timeoutMs`.
   */
  readonly #closed: Promise<never>;
  #close!: (error: Error) => void;
  #nextId = 1;

  constructor(transport: Transport, options: TestClientOptions = {}) {
    this.#transport = transport;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#clientInfo = options.clientInfo ?? { name: "test-client", version: "0.0.0" };
    this.#clientCapabilities = options.clientCapabilities ?? {};
    this.#closed = new Promise<never>((_, reject) => (this.#close = reject));
    this.#closed.catch(() => {}); // a rejection nobody waits for is not an error
  }

  async connect(): Promise<void> {
    await this.#transport.connect();
    void this.#pump();
  }

  /** The `_meta` every request of this revision carries. */
  meta(): Record<string, unknown> {
    return {
      [META_KEYS.protocolVersion]: PROTOCOL_VERSION,
      [META_KEYS.clientInfo]: this.#clientInfo,
      [META_KEYS.clientCapabilities]: this.#clientCapabilities,
    };
  }

  /** Sends a request; resolves with its result, rejects with an `McpError` for an error response. */
  async request<M extends ClientRequestMethod>(method: M, ...[params, options]: ParamsArgs<M>): Promise<ResultOf<M>> {
    const response = await this.#exchange(method, params ?? {}, options?.id);
    if ("error" in response) throw new McpError(response.error.code, response.error.message, response.error.data);
    return response.result as unknown as ResultOf<M>;
  }

  /** Sends a notification, such as `notifications/cancelled`. */
  async notify<M extends ClientNotificationMethod>(method: M, params: Omit<ClientNotifications[M]["params"], "_meta">): Promise<void> {
    await this.#transport.sendMessage({ jsonrpc: "2.0", method, params: { ...params, _meta: this.meta() } });
  }

  /** The first notification with `method` (already received or still to come) that `match` accepts. */
  notification<M extends ServerNotificationMethod>(
    method: M,
    match: (notification: ServerNotifications[M]) => boolean = () => true,
  ): Promise<ServerNotifications[M]> {
    const accepts = (n: AnyServerNotification): n is ServerNotifications[M] => n.method === method && match(n as ServerNotifications[M]);
    const seen = this.notifications.find(accepts);
    if (seen) return Promise.resolve(seen);
    const arrived = new Promise<ServerNotifications[M]>((resolve) => this.#waiters.push({ match: accepts, resolve: resolve as Waiter["resolve"] }));
    return this.#bounded(arrived, `no ${method} notification`);
  }

  /**
   * Opens a listen stream and resolves once the server acknowledged it. A refusal (an error
   * response) rejects with its `McpError`.
   */
  async listen(notifications: SubscriptionFilter, options: RequestOptions = {}): Promise<ListenStream> {
    const id = options.id ?? this.#nextId++;
    const onStream = (n: AnyServerNotification) => (n.params?._meta as Record<string, unknown> | undefined)?.[META_KEYS.subscriptionId] === id;
    const acknowledged = this.notification("notifications/subscriptions/acknowledged", onStream);
    const result = this.request("subscriptions/listen", { notifications }, { id });
    // Whichever comes first: the acknowledgement, or a response that ends the request.
    const ack = await Promise.race([acknowledged, result.then(() => Promise.reject(new Error(`listen ${String(id)} ended before it was acknowledged`)))]);
    result.catch(() => {}); // awaited by whoever reads `stream.result`
    const taken = new Set<AnyServerNotification>();
    const received = () => this.notifications.filter((n) => n.method !== "notifications/subscriptions/acknowledged" && onStream(n));
    return {
      id,
      honored: ack.params.notifications,
      get received() {
        return received();
      },
      next: async (method) => {
        const found = await this.notification(method, (n) => onStream(n) && !taken.has(n));
        taken.add(found);
        return found;
      },
      result,
      cancel: (reason) => this.notify("notifications/cancelled", reason === undefined ? { requestId: id } : { requestId: id, reason }),
    };
  }

  async close(): Promise<void> {
    await this.#transport.close();
  }

  #exchange(method: string, params: object, id: RequestId = this.#nextId++): Promise<JsonRpcResponse> {
    const response = new Promise<JsonRpcResponse>((resolve) => this.#pending.set(id, resolve));
    const meta = { ...this.meta(), ...(params as { _meta?: object })._meta };
    const message: JsonRpcMessage = { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } };
    void this.#transport.sendMessage(message).catch(() => {});
    return this.#bounded(response, `no response to ${method} (id ${String(id)})`).finally(() => this.#pending.delete(id));
  }

  #bounded<T>(promise: Promise<T>, what: string): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} within ${this.#timeoutMs} ms`)), this.#timeoutMs);
    });
    return Promise.race([promise, expired, this.#closed]).finally(() => clearTimeout(timer));
  }

  async #pump(): Promise<void> {
    for (;;) {
      let received;
      try {
        received = await this.#transport.receiveMessage();
      } catch {
        return this.#close(new Error("the test client's transport closed"));
      }
      const message = (typeof received.message === "string" ? JSON.parse(received.message) : received.message) as JsonRpcMessage;
      if ("method" in message) {
        if (!("id" in message)) this.#deliver(message as unknown as AnyServerNotification);
        continue;
      }
      if (message.id !== undefined && message.id !== null) this.#pending.get(message.id)?.(message);
    }
  }

  #deliver(notification: AnyServerNotification): void {
    this.notifications.push(notification);
    for (const waiter of [...this.#waiters]) {
      if (!waiter.match(notification)) continue;
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve(notification);
    }
  }
}

/** Anything a test client can be connected to: a runtime `Server`. */
export interface Connectable {
  connect(transport: Transport): Promise<void>;
}

/**
 * Connects a new test client to `server` over an in-memory, JSON-encoded transport pair
 * (`options.serverContext` is what a transport would attach, e.g. `{ principal: "alice" }`).
 */
export async function connectTestClient(server: Connectable, options: TestClientOptions & MemoryPairOptions = {}): Promise<TestClient> {
  const pair = createTestTransportPair(options.serverContext === undefined ? {} : { serverContext: options.serverContext });
  await server.connect(pair.server);
  const client = new TestClient(pair.client, options);
  await client.connect();
  return client;
}

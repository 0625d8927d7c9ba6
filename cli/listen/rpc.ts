/**
 * The little JSON-RPC client `mcp-gen listen` needs: requests matched to their responses
 * by id, notifications handed to one callback, and the end of the transport (or of one
 * request's stream) reported, so the caller can tell a `complete` result from an abrupt
 * close. Every request carries the per-request `_meta` of 2026-07-28, except on a legacy
 * (2025-11-25) session, which negotiated its version once in `initialize`.
 */
import {
  HttpStatusError,
  httpStatusOf,
  HttpStreamClosedError,
  META_KEYS,
  PROTOCOL_VERSION,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcResponse,
  type RequestId,
  type Transport,
  type TransportEvent,
} from "../../generated/index.js";

export const CLIENT_INFO = { name: "mcp-gen listen", version: "0.1.0" } as const;

/**
 * How a request ended: its response, or the stream/transport going away without one;
 * `httpStatus` when an HTTP server refused it (a non-2xx status, with or without an answer).
 */
export type RequestOutcome = { kind: "response"; response: JsonRpcResponse; httpStatus?: number } | { kind: "closed"; reason: string; httpStatus?: number };

export class RpcClient {
  readonly #transport: Transport;
  readonly #pending = new Map<RequestId, (outcome: RequestOutcome) => void>();
  #nextId = 1;
  #onNotification: (n: JsonRpcNotification) => void = () => {};
  #onClosed: () => void = () => {};
  readonly #legacy: boolean;

  constructor(transport: Transport, options: { readonly legacy?: boolean } = {}) {
    this.#transport = transport;
    this.#legacy = options.legacy === true;
    transport.subscribe?.((event) => this.#onEvent(event));
  }

  onNotification(callback: (n: JsonRpcNotification) => void): void {
    this.#onNotification = callback;
  }

  /** Called once the transport has closed. */
  onClosed(callback: () => void): void {
    this.#onClosed = callback;
  }

  /** Sends a notification (no answer is awaited). */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    await this.#transport.sendMessage(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
  }

  /** The id the next request will carry. */
  get nextId(): RequestId {
    return this.#nextId;
  }

  /** Sends a request with the per-request `_meta`; resolves with how it ended. */
  async request(method: string, params: Record<string, unknown> = {}): Promise<RequestOutcome> {
    const id = this.#nextId++;
    const _meta = {
      [META_KEYS.protocolVersion]: PROTOCOL_VERSION,
      [META_KEYS.clientInfo]: CLIENT_INFO,
      [META_KEYS.clientCapabilities]: {},
    };
    const outcome = new Promise<RequestOutcome>((resolve) => this.#pending.set(id, resolve));
    try {
      await this.#transport.sendMessage({ jsonrpc: "2.0", id, method, params: this.#legacy ? params : { ...params, _meta } });
    } catch (error) {
      const httpStatus = error instanceof HttpStatusError ? { httpStatus: error.status } : {};
      this.#settle(id, { kind: "closed", reason: describe(error), ...httpStatus });
    }
    return outcome;
  }

  /** Cancels a request: over HTTP this closes its response stream, over stdio it notifies. */
  async cancel(id: RequestId): Promise<void> {
    const message: JsonRpcMessage = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } };
    await this.#transport.sendMessage(message).catch(() => {});
  }

  #settle(id: RequestId, outcome: RequestOutcome): void {
    const resolve = this.#pending.get(id);
    if (resolve === undefined) return;
    this.#pending.delete(id);
    resolve(outcome);
  }

  #onEvent(event: TransportEvent): void {
    if (event.type === "closed") {
      for (const id of [...this.#pending.keys()]) this.#settle(id, { kind: "closed", reason: "the connection closed" });
      this.#onClosed();
      return;
    }
    if (event.type === "error") {
      if (event.error instanceof HttpStreamClosedError) {
        this.#settle(event.error.requestId, { kind: "closed", reason: event.error.message });
      }
      return;
    }
    if (event.type !== "message") return; // input-ended: the "closed" that follows settles what is pending
    const message = typeof event.message === "string" ? safeParse(event.message) : event.message;
    if (message === undefined) return;
    if ("method" in message) {
      if (!("id" in message)) this.#onNotification(message);
      return;
    }
    if (message.id === undefined || message.id === null) return;
    const httpStatus = httpStatusOf(event.context);
    this.#settle(message.id, { kind: "response", response: message, ...(httpStatus === undefined ? {} : { httpStatus }) });
  }
}

/** An error's message with its cause's (fetch says only "fetch failed" and hides the reason there). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = typeof cause?.code === "string" ? cause.code : typeof cause?.message === "string" ? cause.message : undefined;
  return detail === undefined ? error.message : `${error.message}: ${detail}`;
}

function safeParse(text: string): JsonRpcMessage | undefined {
  try {
    return JSON.parse(text) as JsonRpcMessage;
  } catch {
    return undefined;
  }
}

/**
 * One connected transport: reads messages (push when offered, else pull), answers
 * requests, runs the listen streams opened on it, and tears them down when the client
 * cancels one or the transport goes away. Cheap to create: one per HTTP request is fine.
 */
import { META_KEYS, type ClientNotificationMethod, type ClientRequestMethod, type SubscriptionFilter } from "./protocol.js";
import type { EventHook } from "./hooks.js";
import {
  classifyMessage,
  droppedAnswer,
  errorResponse,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcResultResponse,
  type RequestId,
} from "./jsonrpc.js";
import type { Era, EraConnection, EraSession, Rounds, Translate } from "./era.js";
import { checkRequestMeta, mergeMeta, type HandlerMeta } from "./meta.js";
import { RequestScope, type RequestContext } from "./request-notifications.js";
import { keptRequestBytes, listenRefusal, type AdmissionHost } from "./subscriptions/admission.js";
import { clientKey, type ClientKey } from "./subscriptions/slots.js";
import { ListenStream, type HandlerEntry, type StreamHost, type Teardown } from "./subscriptions/stream.js";
import { StreamTable } from "./subscriptions/stream-table.js";
import type { TraceFacts, TraceSpan, Tracing } from "./tracing.js";
import {
  SENT,
  SlowConsumerEvicted,
  supportsPush,
  type SharedText,
  type MessageContext,
  type ReceivedMessage,
  type Transport,
  type TransportEvent,
} from "./transport.js";

export const LISTEN_METHOD = "subscriptions/listen" satisfies ClientRequestMethod;
/** A probe a client may send before it falls back to `initialize`: it does not fix the connection's era. */
export const DISCOVER_METHOD = "server/discover" satisfies ClientRequestMethod;
/** -32021; absent from revisions without it, where no extension adds filter keys either. */
const CANCELLED_METHOD = "notifications/cancelled" satisfies ClientNotificationMethod;
const SUBSCRIPTION_ID_KEY: string = META_KEYS.subscriptionId;
/** The message-context key a transport vouches for the caller with (HTTP authentication). */
const PRINCIPAL_KEY = "principal";

export type { RequestContext } from "./request-notifications.js";

/** What a connection needs from its server. */
export interface ConnectionHost extends AdmissionHost {
  readonly emit: EventHook;
  /** Reports a failed send; one function for every connection. */
  readonly onSendError: (error: unknown) => void;
  readonly mailboxSize: number;
  readonly supportedVersions: readonly string[];
  readonly subscriptionHandlers: readonly HandlerEntry[];
  /** Adds `resultType` and the server info to a result body. */
  finishResult(result: JsonObject): JsonObject;
  hasMethod(method: string): boolean;
  /**
   * Runs a request's handler. `asReturned`: the result as the handler returned it, without
   * what `finishResult` adds (a legacy answer, which would drop it again).
   */
  dispatch(request: JsonRpcRequest, context: RequestContext, asReturned?: boolean): Promise<JsonRpcResponse>;
  /** Sends a request to the client for the request of `context` through the server's input middleware (`useInput`); `send` sends it. */
  askClient(method: string, params: JsonObject, context: RequestContext, send: (params: JsonObject) => Promise<JsonObject>): Promise<JsonObject>;
  forget(connection: Connection): void;
  /** OpenTelemetry spans (tracing.ts); undefined when `@opentelemetry/api` is absent or tracing is off. */
  readonly tracing: Tracing | undefined;
  /** The era of older clients (era.ts): it takes their messages before the checks below. */
  readonly era: Era;
}

export class Connection implements StreamHost, EraConnection {
  eraSession: EraSession | undefined;
  modernSeen = false;
  readonly #streams = new StreamTable<ListenStream>();
  #shutdown: Promise<void> | undefined;
  /** Requests being handled, for cancellation. */
  readonly #inFlight = new StreamTable<RequestScope>();
  /** Each open listen stream's span, ended with the stream (only while tracing). */
  readonly #streamSpans = new Map<ListenStream, TraceSpan>();
  #closed = false;
  /** Set while the peer's input has ended: wakes #finishThenClose once no request runs. */
  #idle: (() => void) | undefined;

  constructor(
    readonly host: ConnectionHost,
    readonly transport: Transport,
  ) {}

  get emit(): EventHook {
    return this.host.emit;
  }
  get mailboxSize(): number {
    return this.host.mailboxSize;
  }

  /** Not `async`: the transport's own promise is returned (one POST, one connection, no promise of its own). */
  start(): Promise<void> {
    // An inline arrow, not a class-field one: per connection it is the cheapest closure.
    if (supportsPush(this.transport)) this.transport.subscribe!((event) => this.#onEvent(event));
    else void this.#pull();
    return this.transport.connect();
  }

  send(message: JsonRpcMessage, json?: string): void {
    if (this.#closed) return;
    const sent = this.transport.sendMessage(message, json);
    if (sent !== SENT) sent.catch(this.host.onSendError);
  }

  sendText(json: string, shared?: SharedText, idJson?: string): boolean {
    if (this.transport.sendNotificationText === undefined) return false;
    if (this.#closed) return true;
    const sent = this.transport.sendNotificationText(json, shared, idJson);
    if (sent !== SENT) sent.catch(this.host.onSendError);
    return true;
  }

  completeResult(id: RequestId): JsonRpcResultResponse {
    return { jsonrpc: "2.0", id, result: this.host.finishResult({ _meta: { [SUBSCRIPTION_ID_KEY]: id } }) };
  }

  ended(stream: ListenStream, why?: Teardown): void {
    if (this.#streams.delete(stream)) {
      this.host.slots.release(stream.client, stream.keptBytes);
    }
    const span = this.#streamSpans.get(stream);
    if (span === undefined) return;
    this.#streamSpans.delete(stream);
    span.endStream(why?.why ?? "stopped", why?.why === "rejected" ? why.refusal : undefined);
  }

  /**
   * Server shutdown: every stream gets its complete result, requests still running get up to
   * `graceMs` to be answered, then the transport closes (an unanswered request's HTTP POST gets
   * 503). Idempotent: the first call's grace holds.
   */
  shutdown(graceMs = 0): Promise<void> {
    this.#shutdown ??= (async () => {
      await Promise.all(this.#streams.list().map((stream) => stream.teardown({ why: "shutdown" })));
      if (graceMs > 0 && this.#inFlight.size > 0) await this.#whenIdle(graceMs);
      await this.transport.close();
      this.#end("client-gone");
    })();
    return this.#shutdown;
  }

  /** Resolves once no request runs, or after `limitMs`, whichever comes first. */
  #whenIdle(limitMs?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = limitMs === undefined ? undefined : setTimeout(resolve, limitMs);
      const earlier = this.#idle; // EOF and shutdown may both be waiting
      this.#idle = () => {
        clearTimeout(timer);
        earlier?.();
        resolve();
      };
    });
  }

  #onEvent(event: TransportEvent): void {
    if (event.type === "message") this.#receive(event);
    else if (event.type === "closed") this.#end(event.reason instanceof SlowConsumerEvicted ? "evicted" : "client-gone");
    else if (event.type === "input-ended") {
      this.eraSession?.inputEnded(); // answers to its requests can no longer arrive
      void this.#finishThenClose();
    } else this.host.emit({ type: "transport-error", error: event.error });
  }

  async #pull(): Promise<void> {
    while (!this.#closed) {
      let received: ReceivedMessage;
      try {
        received = await this.transport.receiveMessage();
      } catch {
        this.#end("client-gone");
        return;
      }
      this.#receive(received);
    }
  }

  #receive(received: ReceivedMessage): void {
    if (this.#closed) return;
    const classified = classifyMessage(received.message);
    if (this.host.era.route(this, classified, received.context)) return;
    switch (classified.kind) {
      case "invalid":
        this.send(errorResponse(classified.id, classified.error.code, classified.error.message));
        return;
      case "notification":
        this.#notification(classified.message);
        return;
      case "request":
        void this.#request(classified.message, received.context);
        return;
      case "response":
        // This server sends no requests, so no answer is awaited: dropped, and reported.
        this.host.emit({ type: "transport-error", error: droppedAnswer(classified.message) });
        return;
    }
  }

  #notification(notification: JsonRpcNotification): void {
    if (notification.method !== CANCELLED_METHOD) return;
    const id = notification.params?.["requestId"] as RequestId | undefined;
    if (id === undefined) return;
    const stream = this.#streams.get(id);
    // Cancelling a listen request is an outside teardown: handleClose, nothing more sent.
    if (stream !== undefined) void stream.teardown({ why: "cancelled" });
    else this.#inFlight.get(id)?.abort();
  }

  async #request(request: JsonRpcRequest, context: MessageContext | undefined): Promise<void> {
    const { id, method } = request;
    if (this.#refuseIdInUse(id)) return;
    if (method !== LISTEN_METHOD && !this.host.hasMethod(method)) {
      this.send(errorResponse(id, METHOD_NOT_FOUND, `Method not found: ${method}`));
      return;
    }
    const invalidMeta = checkRequestMeta(request, this.host.supportedVersions);
    if (invalidMeta !== undefined) {
      this.send(invalidMeta);
      return;
    }
    if (method !== DISCOVER_METHOD) this.modernSeen = true;
    const meta = mergeMeta(request.params!["_meta"] as JsonObject, context);
    if (method === LISTEN_METHOD) {
      await this.#listen(request, meta, this.clientKey(context));
      return;
    }
    await this.serve(request, meta);
  }

  /** Who this connection's messages come from, for the per-client shares (slots.ts). */
  clientKey(context: MessageContext | undefined): ClientKey {
    return clientKey(context?.[PRINCIPAL_KEY], this.transport.remoteAddress?.(), this);
  }

  /**
   * Runs a request's handler, tracked for cancellation, and sends its response; true when
   * one was sent (a cancelled request gets none). A legacy session's `translate` may run
   * more rounds of the handler (same context and signal) before the answer leaves.
   */
  async serve(request: JsonRpcRequest, meta: HandlerMeta, translate?: Translate): Promise<boolean> {
    const { id } = request;
    if (translate !== undefined && this.#refuseIdInUse(id)) return true;
    // An era session's requests write their notifications trimmed to its client's revision.
    const sink = this.eraSession?.requestSink(this) ?? this;
    const scope = new RequestScope(id, meta, sink, clientKey(meta[PRINCIPAL_KEY], this.transport.remoteAddress?.(), this));
    const inFlight = this.#inFlight;
    inFlight.add(scope);
    // The handler (and a legacy session's further rounds) run inside the request's span, if any.
    const span = this.host.tracing?.start(request, this.#traceFacts());
    const dispatch = () => this.host.dispatch(request, scope, translate !== undefined);
    let response = await (span === undefined ? dispatch() : span.run(dispatch));
    if (translate !== undefined) {
      try {
        const rounds = new RetryRounds(this.host, scope);
        const translated = span === undefined ? translate(response, rounds) : span.run(() => translate(response, rounds));
        response = translated instanceof Promise ? await translated : translated;
      } catch (error) {
        this.host.emit({ type: "handler-error", id, callback: request.method, error });
        response = errorResponse(id, INTERNAL_ERROR, `Internal error while handling ${request.method}`);
      }
    }
    scope.finish(); // the result goes next: nothing about this request may follow it
    inFlight.delete(scope);
    // A cancelled request gets no response: the client said it will not use one.
    const answered = !scope.aborted;
    span?.endWith(answered ? response : undefined);
    if (answered) this.send(response);
    if (inFlight.size === 0) this.#idle?.();
    return answered;
  }

  /** Ends a one-request transport whose request was cancelled (a legacy HTTP POST): no answer, no error. */
  async abandon(): Promise<void> {
    await (this.transport.abandon?.() ?? this.transport.close());
  }

  /** See Transport.closeStream: a request handler asking its client to poll. */
  closeStream(): boolean {
    return this.transport.closeStream?.() ?? false;
  }

  cancelRequest(id: RequestId): void {
    this.#inFlight.get(id)?.abort();
  }

  #refuseIdInUse(id: RequestId): boolean {
    if (this.#inFlight.get(id) === undefined && this.#streams.get(id) === undefined) return false;
    this.send(errorResponse(id, INVALID_REQUEST, `Invalid request: id ${JSON.stringify(id)} is already in use`));
    return true;
  }

  async #listen(request: JsonRpcRequest, meta: HandlerMeta, client: ClientKey): Promise<void> {
    const span = this.host.tracing?.start(request, this.#traceFacts());
    const kept = keptRequestBytes(request.params?.["notifications"], meta);
    const refused = listenRefusal(this.host, request, meta, client, kept);
    if (refused !== undefined) {
      span?.endWith(refused);
      this.send(refused);
      return;
    }
    const stream = new ListenStream(this, request.id, meta, request.params!["notifications"] as SubscriptionFilter, client, kept);
    this.#streams.add(stream);
    if (span !== undefined) this.#streamSpans.set(stream, span);
    try {
      // The handlers' subscribe (and whatever it starts) runs inside the stream's span.
      await (span === undefined ? stream.open(this.host.subscriptionHandlers) : span.run(() => stream.open(this.host.subscriptionHandlers)));
    } catch (error) {
      void stream.teardown({ why: "failed", callback: "subscribe", error });
    }
  }

  /** What a span learns from the connection: what its era session tells (a legacy HTTP session's id). */
  #traceFacts(): TraceFacts {
    return this.eraSession?.traceFacts() ?? {};
  }

  /** The peer sent its last message: streams end, answers still due are written, then the transport closes. */
  async #finishThenClose(): Promise<void> {
    for (const stream of this.#streams.list()) void stream.teardown({ why: "client-gone" });
    if (this.#inFlight.size > 0) await this.#whenIdle();
    await this.transport.close();
  }

  /**
   * The transport went away (or cut a client that did not read): streams end without a
   * word, in-flight requests are aborted, the server forgets this connection. Idempotent.
   */
  #end(why: "client-gone" | "evicted"): void {
    if (this.#closed) return;
    for (const stream of this.#streams.list()) void stream.teardown({ why });
    this.#closed = true;
    for (const scope of this.#inFlight.list()) scope.abort();
    this.eraSession?.connectionGone();
    this.host.forget(this);
  }
}

/** A request's further rounds (legacy input rounds): its signal, and its handler run again in the same scope. */
class RetryRounds implements Rounds {
  constructor(
    readonly host: ConnectionHost,
    readonly scope: RequestScope,
  ) {}

  get signal(): AbortSignal {
    return this.scope.signal;
  }

  dispatch(retry: JsonRpcRequest): Promise<JsonRpcResponse> {
    return this.host.dispatch(retry, this.scope, true);
  }

  ask(method: string, params: JsonObject, send: (params: JsonObject) => Promise<JsonObject>): Promise<JsonObject> {
    return this.host.askClient(method, params, this.scope, send);
  }
}

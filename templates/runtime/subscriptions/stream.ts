/**
 * One `subscriptions/listen` stream: its workers (one per handler that took it), their
 * mailboxes, the ack, and every way the stream can end.
 *
 * Several handlers: each handler whose declared `subscriptionCapabilities` meet the
 * request is offered the stream and gets its own worker (state, mailbox, channel). The ack
 * reports the union of what the accepting workers honored; each worker may only send what
 * it honored itself. A `{ stop }` from any worker completes the stream, and the others get
 * `handleClose`. When every offered handler declines, the request gets an error response.
 *
 * Mailbox policy: a worker's mailbox holds at most `mailboxSize` messages. When it is
 * full, a posted message equal to one still waiting is dropped (change events are
 * idempotent: one pending "tools changed" says it all). If it is still full, the stream
 * ends as on shutdown: the client gets the `complete` result (it may have missed events,
 * so it should listen again and re-fetch) and every worker gets `handleClose`.
 */
import { META_KEYS, SUBSCRIPTION_STREAM_METHODS, type SubscriptionCapabilities } from "../../capabilities.js";
import type { SubscriptionFilter } from "../../types.js";
import type { EventHook, StreamEndCause } from "../hooks.js";
import {
  errorResponse,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  isObject,
  McpError,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcResultResponse,
  type RequestId,
} from "../jsonrpc.js";
import { gateFor, intersectFilter, isEmptyFilter, KINDS, unionFilters, type Gate } from "./filter.js";
import type { Channel, OutgoingNotification, SendResult, StopReason, SubscriptionHandler } from "./types.js";

const SUBSCRIPTION_ID_KEY: string = META_KEYS.subscriptionId;
const STAMPED: ReadonlySet<string> = new Set<string>(SUBSCRIPTION_STREAM_METHODS);
/** The stream method that is no kind's notification: the acknowledgement. */
const ACK_METHOD: string = SUBSCRIPTION_STREAM_METHODS.find((method) => !KINDS.some((k) => k.notificationMethod === method))!;

const SENT: SendResult = Object.freeze({ ok: true });
const REFUSED_CLOSED: SendResult = Object.freeze({ ok: false, reason: "closed" });
const REFUSED_NOT_ACKNOWLEDGED: SendResult = Object.freeze({ ok: false, reason: "not-acknowledged" });
const REFUSED_NOT_REQUESTED: SendResult = Object.freeze({ ok: false, reason: "not-requested" });
const REFUSED_URI: SendResult = Object.freeze({ ok: false, reason: "uri-not-honored" });
const EMPTY_FILTER: SubscriptionFilter = Object.freeze({});

/** What a stream needs from the connection that carries it. */
export interface StreamHost {
  send(message: JsonRpcMessage): void;
  readonly emit: EventHook;
  completeResult(id: RequestId): JsonRpcResultResponse;
  /** The stream is over and its id may be reused. */
  ended(stream: ListenStream): void;
  readonly mailboxSize: number;
}

export interface HandlerEntry {
  readonly handler: SubscriptionHandler<any, any>;
  readonly arg: unknown;
}

type Phase = "subscribing" | "open" | "closed";

/** Adds the subscription id to a stream notification's `_meta`, unless one is there. */
export function stampNotification(notification: OutgoingNotification, id: RequestId): JsonRpcNotification {
  const { method, params } = notification;
  const meta = params?._meta;
  if (!STAMPED.has(method) || (isObject(meta) && meta[SUBSCRIPTION_ID_KEY] !== undefined)) {
    return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
  }
  // One shallow copy per stream: the same event object is fanned out to many streams.
  return { jsonrpc: "2.0", method, params: { ...params, _meta: { ...(meta as object), [SUBSCRIPTION_ID_KEY]: id } } };
}

class Worker implements Channel {
  state: unknown;
  honored: SubscriptionFilter = EMPTY_FILTER;
  declared: SubscriptionCapabilities = {};
  #gate: Gate = new Map();
  #closed = false;
  #closeHandled = false;
  /** A handleMessage is running (synchronously on the stack, or awaited). */
  #busy = false;
  #onIdle: (() => void) | undefined;
  readonly #mailbox: unknown[] = [];

  constructor(
    readonly stream: ListenStream,
    readonly entry: HandlerEntry,
  ) {}

  get requestId(): RequestId {
    return this.stream.id;
  }
  get meta(): Readonly<Record<string, unknown>> {
    return this.stream.meta;
  }
  get closed(): boolean {
    return this.#closed;
  }

  accept(state: unknown, honored: SubscriptionFilter): void {
    this.state = state;
    this.honored = honored;
    this.#gate = gateFor(honored);
  }

  sendNotification(notification: OutgoingNotification): SendResult {
    if (this.#closed) return REFUSED_CLOSED;
    if (this.stream.phase !== "open") return REFUSED_NOT_ACKNOWLEDGED;
    const rule = this.#gate.get(notification.method);
    if (rule === undefined) return REFUSED_NOT_REQUESTED;
    if (rule !== true) {
      const uri = notification.params?.uri;
      if (typeof uri !== "string" || !rule.has(uri)) return REFUSED_URI;
    }
    this.stream.host.send(stampNotification(notification, this.stream.id));
    return SENT;
  }

  post(message: unknown): boolean {
    if (this.#closed) return false;
    const mailbox = this.#mailbox;
    if (mailbox.length >= this.stream.host.mailboxSize) {
      if (mailbox.some((waiting) => sameMessage(waiting, message))) {
        this.stream.host.emit({ type: "message-coalesced", id: this.stream.id });
        return true;
      }
      void this.stream.end("overflow", true);
      return false;
    }
    mailbox.push(message);
    this.start();
    return true;
  }

  /**
   * Processes the mailbox once the stream is open. Synchronous handlers run right here,
   * inside the post() that delivered the message (no task or microtask per message: the
   * fan-out path stays a plain loop); an async handler's promise is awaited before the
   * next message. Either way one message at a time, in order.
   */
  start(): void {
    if (this.#busy || this.#closed || this.stream.phase !== "open") return;
    this.#busy = true;
    const { handler, arg } = this.entry;
    while (this.#mailbox.length > 0 && !this.#closed) {
      let result: unknown;
      try {
        result = handler.handleMessage(this.#mailbox.shift(), this, this.state, arg);
      } catch (error) {
        this.stream.fail("handleMessage", error);
        break;
      }
      if (isThenable(result)) {
        result.then(
          (settled) => this.#settleAndContinue(settled),
          (error: unknown) => this.#failAndStop(error),
        );
        return; // still busy until the promise settles
      }
      if (!this.#settle(result)) break;
    }
    this.#becomeIdle();
  }

  #settleAndContinue(result: unknown): void {
    this.#busy = false;
    if (this.#settle(result)) this.start();
    else this.#becomeIdle();
  }

  #failAndStop(error: unknown): void {
    this.#busy = false;
    if (!this.#closed) this.stream.fail("handleMessage", error);
    this.#becomeIdle();
  }

  /** Applies one handleMessage result; false when the worker must not go on. */
  #settle(result: unknown): boolean {
    if (isObject(result) && "stream" in result) {
      this.state = result.stream; // kept even when torn down meanwhile: handleClose sees it
      return !this.#closed;
    }
    if (this.#closed) return false;
    if (isObject(result) && "stop" in result) this.stream.stop(this, result.stop as StopReason);
    else this.stream.fail("handleMessage", new TypeError("handleMessage returned neither { stream } nor { stop }"));
    return false;
  }

  #becomeIdle(): void {
    this.#busy = false;
    const waiting = this.#onIdle;
    this.#onIdle = undefined;
    waiting?.();
  }

  /** Resolves once no handleMessage is running for this worker. */
  #idle(): Promise<void> {
    if (!this.#busy) return Promise.resolve();
    return new Promise((resolve) => {
      const before = this.#onIdle;
      this.#onIdle = () => {
        before?.();
        resolve();
      };
    });
  }

  /** No more sends or deliveries; the mailbox is dropped. */
  close(): void {
    this.#closed = true;
    this.#mailbox.length = 0;
  }

  /** Runs handleClose exactly once, after any handleMessage in flight. */
  async closeFromOutside(): Promise<void> {
    if (this.#closeHandled) return;
    this.#closeHandled = true;
    this.close();
    await this.#idle();
    const { handler, arg } = this.entry;
    if (handler.handleClose === undefined) return;
    try {
      await handler.handleClose(this, this.state, arg);
    } catch (error) {
      this.stream.host.emit({ type: "handler-error", id: this.stream.id, callback: "handleClose", error });
    }
  }

  /** Marks the worker as not needing handleClose (it stopped by itself). */
  skipClose(): void {
    this.#closeHandled = true;
    this.close();
  }

}

export class ListenStream {
  phase: Phase = "subscribing";
  readonly #workers: Worker[] = [];
  #ended: Promise<void> | undefined;

  constructor(
    readonly host: StreamHost,
    readonly id: RequestId,
    readonly meta: Readonly<Record<string, unknown>>,
    readonly requested: SubscriptionFilter,
  ) {}

  /** Offers the stream to the handlers, then acknowledges it or answers with an error. */
  async open(entries: readonly HandlerEntry[]): Promise<void> {
    const offered: Array<{ worker: Worker; upper: SubscriptionFilter }> = [];
    for (const entry of entries) {
      const worker = new Worker(this, entry);
      try {
        worker.declared = entry.handler.subscriptionCapabilities?.(worker, entry.arg) ?? {};
      } catch (error) {
        this.host.emit({ type: "handler-error", id: this.id, callback: "subscriptionCapabilities", error });
        continue;
      }
      const upper = intersectFilter(this.requested, worker.declared);
      if (!isEmptyFilter(upper)) offered.push({ worker, upper });
    }
    let refusal: unknown;
    for (const { worker, upper } of offered) {
      if (this.phase === "closed") break;
      refusal = (await this.#subscribe(worker, upper)) ?? refusal;
    }
    if (this.phase === "closed") return; // torn down while subscribing: nothing more is sent
    if (this.#workers.length === 0 && offered.length > 0) {
      this.#reject(refusal);
      return;
    }
    const honored = unionFilters(this.#workers.map((worker) => worker.honored));
    this.phase = "open";
    this.host.send({
      jsonrpc: "2.0",
      method: ACK_METHOD,
      params: { notifications: honored, _meta: { [SUBSCRIPTION_ID_KEY]: this.id } },
    });
    this.host.emit({ type: "stream-opened", id: this.id, honored });
    for (const worker of this.#workers) worker.start();
  }

  /** A worker's `{ stop }`: the complete result, and handleClose for the other workers. */
  stop(stopper: Worker, reason: StopReason): void {
    if (this.phase === "closed") return;
    stopper.skipClose();
    this.host.emit({ type: "stream-stopped", id: this.id, reason });
    void this.#finish(true);
  }

  /** A worker's callback threw or returned garbage: its stream ends, cleanup still runs. */
  fail(callback: string, error: unknown): void {
    this.host.emit({ type: "handler-error", id: this.id, callback, error });
    void this.end("handler-error", true);
  }

  /**
   * Ends the stream from outside the handlers. `complete` sends the complete result (a
   * graceful end the client sees, as on shutdown); without it nothing more is written
   * for this id (a cancel, a dropped transport). Every worker gets handleClose once.
   */
  end(cause: StreamEndCause, complete: boolean): Promise<void> {
    if (this.phase === "closed") return this.#ended ?? Promise.resolve();
    this.host.emit({ type: "stream-closed", id: this.id, cause });
    return this.#finish(complete);
  }

  #finish(complete: boolean): Promise<void> {
    this.phase = "closed";
    for (const worker of this.#workers) worker.close();
    if (complete) this.host.send(this.host.completeResult(this.id));
    this.host.ended(this);
    this.#ended = Promise.all(this.#workers.map((worker) => worker.closeFromOutside())).then(() => undefined);
    return this.#ended;
  }

  /** Runs one handler's subscribe; returns its refusal reason when it declined. */
  async #subscribe(worker: Worker, upper: SubscriptionFilter): Promise<unknown> {
    const { handler, arg } = worker.entry;
    let result: unknown;
    try {
      result = await handler.subscribe(upper, worker, arg);
    } catch (error) {
      this.host.emit({ type: "handler-error", id: this.id, callback: "subscribe", error });
      worker.skipClose();
      return new McpError(INTERNAL_ERROR, "The subscription handler failed");
    }
    if (isObject(result) && "stream" in result) {
      const narrowed = "honored" in result ? (isObject(result.honored) ? result.honored : EMPTY_FILTER) : undefined;
      worker.accept(result.stream, intersectFilter(upper, worker.declared, narrowed as SubscriptionFilter | undefined));
      this.#workers.push(worker);
      if (this.phase === "closed") await worker.closeFromOutside();
      return undefined;
    }
    worker.skipClose();
    if (isObject(result) && "stop" in result) return result.stop ?? "rejected";
    this.host.emit({ type: "handler-error", id: this.id, callback: "subscribe", error: new TypeError("subscribe returned neither { stream } nor { stop }") });
    return new McpError(INTERNAL_ERROR, "The subscription handler failed");
  }

  #reject(reason: unknown): void {
    this.phase = "closed";
    const error = reason instanceof McpError ? reason : new McpError(INVALID_PARAMS, "The server declined this subscription");
    this.host.send(errorResponse(this.id, error.code, error.message, error.data));
    this.host.emit({ type: "stream-rejected", id: this.id, reason });
    this.host.ended(this);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return isObject(value) && typeof (value as { then?: unknown }).then === "function";
}

function sameMessage(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isObject(a) || !isObject(b)) return false;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

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
import { SUBSCRIPTION_STREAM_METHODS, type SubscriptionFilter } from "../protocol.js";
import type { StreamEndCause } from "../hooks.js";
import { errorResponse, INTERNAL_ERROR, INVALID_PARAMS, isObject, McpError, type RequestId } from "../jsonrpc.js";
import { intersectFilter, isEmptyFilter, KINDS, unionFilters } from "./filter.js";
import type { StopReason } from "./types.js";
import { EMPTY_FILTER, SUBSCRIPTION_ID_KEY, Worker, type HandlerEntry, type Phase, type StreamHost, type WorkerOwner } from "./worker.js";

export { stampNotification, type HandlerEntry, type StreamHost } from "./worker.js";

/** The stream method that is no kind's notification: the acknowledgement. */
const ACK_METHOD: string = SUBSCRIPTION_STREAM_METHODS.find((method) => !KINDS.some((k) => k.notificationMethod === method))!;

export class ListenStream implements WorkerOwner {
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

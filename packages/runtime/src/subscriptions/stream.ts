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
 *
 * Ownership runs one way: the connection owns its streams, a stream its workers, a worker
 * hands its handler a `Channel`. A worker reaches its stream only through `WorkerOwner`
 * (send, and `teardown`), a stream its connection only through `StreamHost`.
 */
import { SUBSCRIPTION_STREAM_METHODS, type SubscriptionFilter } from "../protocol.js";
import type { EventHook, StreamEndCause } from "../hooks.js";
import { errorResponse, INTERNAL_ERROR, isObject, McpError, type JsonRpcMessage, type JsonRpcResultResponse, type RequestId } from "../jsonrpc.js";
import type { ClientKey } from "./slots.js";
import { intersectFilter, isEmptyFilter, KINDS, unionFilters } from "./filter.js";
import { splicedFrom, stampedJson, stampNotification } from "./stamp.js";
import type { SharedText } from "../transport.js";
import type { OutgoingNotification } from "./types.js";
import { EMPTY_FILTER, SUBSCRIPTION_ID_KEY, Worker, type HandlerEntry, type WorkerEnding, type WorkerOwner } from "./worker.js";
import type { HandlerMeta } from "../meta.js";
import { refusalError } from "../retryable.js";

export { stampNotification, type HandlerEntry } from "./worker.js";

/** The stream method that is no kind's notification: the acknowledgement. */
const ACK_METHOD: string = SUBSCRIPTION_STREAM_METHODS.find((method) => !KINDS.some((k) => k.notificationMethod === method))!;

/** What a stream needs from the connection that carries it. */
export interface StreamHost {
  /** `json`, when given, is the message's JSON text, for transports that write text. */
  send(message: JsonRpcMessage, json?: string): void;
  /**
   * Sends a notification given only as its text, where the transport writes text (then no
   * message object is built for it); false, having sent nothing, where it does not.
   */
  sendText?(json: string, shared?: SharedText, idJson?: string): boolean;
  readonly emit: EventHook;
  completeResult(id: RequestId): JsonRpcResultResponse;
  /** The stream is over and its id may be reused; `why` is how it ended (a span records it). */
  ended(stream: ListenStream, why?: Teardown): void;
  readonly mailboxSize: number;
}

/**
 * Why a stream ends; the argument of its one `teardown`. Graceful endings (a handler's
 * stop, a handler failure, a mailbox overflow, server shutdown) send the client the
 * listen request's `complete` result; the client going away (a cancel, a closed
 * transport, an eviction for not reading) sends nothing more. A refusal answers the
 * listen request with an error instead of the ack. Every accepted worker's handleClose
 * runs once, except the one whose `{ stop }` ended the stream.
 */
export type Teardown =
  WorkerEnding | { readonly why: "rejected"; readonly refusal: unknown } | { readonly why: "cancelled" | "client-gone" | "shutdown" | "evicted" };

/** Each outside ending as `onEvent` reports it, and whether the client gets `complete`. */
const OUTSIDE_ENDINGS: Readonly<Record<Exclude<Teardown["why"], "stopped" | "rejected">, { cause: StreamEndCause; complete: boolean }>> = {
  failed: { cause: "handler-error", complete: true },
  overflow: { cause: "overflow", complete: true },
  shutdown: { cause: "shutdown", complete: true },
  cancelled: { cause: "cancelled", complete: false },
  "client-gone": { cause: "transport-closed", complete: false },
  evicted: { cause: "evicted", complete: false },
};

type Phase = "subscribing" | "open" | "closed";

export class ListenStream implements WorkerOwner {
  #phase: Phase = "subscribing";
  readonly #host: StreamHost;
  #workers: Worker[] = [];
  #ended: Promise<void> | undefined;

  constructor(
    host: StreamHost,
    readonly id: RequestId,
    readonly meta: HandlerMeta,
    readonly requested: SubscriptionFilter,
    /** Whose share of listen slots this stream holds (its host releases it at the end). */
    readonly client: ClientKey,
    /** What it keeps of its request, counted against the slots' byte total (slots.ts). */
    readonly keptBytes = 0,
  ) {
    this.#host = host;
  }

  get isOpen(): boolean {
    return this.#phase === "open";
  }
  get mailboxSize(): number {
    return this.#host.mailboxSize;
  }
  get emit(): EventHook {
    return this.#host.emit;
  }

  sendNotification(notification: OutgoingNotification, idJson: string): void {
    const json = stampedJson(notification, this.id, idJson);
    if (this.#host.sendText?.(json, splicedFrom(), idJson) !== true) this.#host.send(stampNotification(notification, this.id), json);
  }

  /** Offers the stream to the handlers, then acknowledges it or answers with an error. */
  async open(entries: readonly HandlerEntry[]): Promise<void> {
    const offered: Array<{ worker: Worker; upper: SubscriptionFilter }> = [];
    for (const entry of entries) {
      const worker = new Worker(this, entry);
      try {
        worker.declared = entry.handler.subscriptionCapabilities?.(worker.channel, entry.arg) ?? {};
      } catch (error) {
        this.emit({ type: "handler-error", id: this.id, callback: "subscriptionCapabilities", error });
        continue;
      }
      const upper = intersectFilter(this.requested, worker.declared);
      if (!isEmptyFilter(upper)) offered.push({ worker, upper });
    }
    let refusal: unknown;
    for (const { worker, upper } of offered) {
      if (this.#phase === "closed") break;
      refusal = (await this.#subscribe(worker, upper)) ?? refusal;
    }
    if (this.#phase === "closed") return; // torn down while subscribing: nothing more is sent
    if (this.#workers.length === 0 && offered.length > 0) {
      void this.teardown({ why: "rejected", refusal });
      return;
    }
    // An array grown by push keeps room for 17; the stream keeps an exact-size copy for life.
    this.#workers = this.#workers.slice();
    const honored = unionFilters(this.#workers.map((worker) => worker.honored));
    this.#phase = "open";
    this.#host.send({
      jsonrpc: "2.0",
      method: ACK_METHOD,
      params: { notifications: honored, _meta: { [SUBSCRIPTION_ID_KEY]: this.id } },
    });
    this.emit({ type: "stream-opened", id: this.id, honored });
    for (const worker of this.#workers) worker.start();
  }

  /**
   * The one way a stream ends, whatever the reason (see `Teardown`). Idempotent: the first
   * call decides; later ones get the same promise, which settles once every handleClose
   * has run.
   */
  teardown(why: Teardown): Promise<void> {
    if (this.#ended !== undefined) return this.#ended;
    this.#phase = "closed";
    this.#report(why);
    if (why.why === "stopped") void why.by.end(false);
    // Every worker is closed before anything more is written; handleClose runs after.
    const closing = this.#workers.map((worker) => worker.end(true));
    if (why.why === "rejected") {
      const error = refusalError(why.refusal);
      this.#host.send(errorResponse(this.id, error.code, error.message, error.data));
    } else if (why.why === "stopped" || OUTSIDE_ENDINGS[why.why].complete) {
      this.#host.send(this.#host.completeResult(this.id));
    }
    this.#host.ended(this, why);
    this.#ended = Promise.all(closing).then(() => undefined);
    return this.#ended;
  }

  #report(why: Teardown): void {
    if (why.why === "stopped") return this.emit({ type: "stream-stopped", id: this.id, reason: why.reason });
    if (why.why === "rejected") return this.emit({ type: "stream-rejected", id: this.id, reason: why.refusal });
    if (why.why === "failed") this.emit({ type: "handler-error", id: this.id, callback: why.callback, error: why.error });
    this.emit({ type: "stream-closed", id: this.id, cause: OUTSIDE_ENDINGS[why.why].cause });
  }

  /** Runs one handler's subscribe; returns its refusal reason when it declined. */
  async #subscribe(worker: Worker, upper: SubscriptionFilter): Promise<unknown> {
    const { handler, arg } = worker.entry;
    let result: unknown;
    try {
      result = await handler.subscribe(upper, worker.channel, arg);
    } catch (error) {
      this.emit({ type: "handler-error", id: this.id, callback: "subscribe", error });
      void worker.end(false);
      return new McpError(INTERNAL_ERROR, "The subscription handler failed");
    }
    if (isObject(result) && "stream" in result) {
      const narrowed = "honored" in result ? (isObject(result["honored"]) ? result["honored"] : EMPTY_FILTER) : undefined;
      worker.accept(result["stream"], intersectFilter(upper, worker.declared, narrowed as SubscriptionFilter | undefined));
      this.#workers.push(worker);
      // Torn down while this subscribe ran: the handler took the stream, so it hears of the end.
      if (this.#phase === "closed") await worker.end(true);
      return undefined;
    }
    void worker.end(false);
    if (isObject(result) && "stop" in result) return result["stop"] ?? "rejected";
    this.emit({ type: "handler-error", id: this.id, callback: "subscribe", error: new TypeError("subscribe returned neither { stream } nor { stop }") });
    return new McpError(INTERNAL_ERROR, "The subscription handler failed");
  }
}

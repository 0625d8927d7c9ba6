/**
 * One handler's worker on a listen stream: its state, its mailbox, and the channel it
 * sends through. Sends are checked against what this worker honored and stamped with
 * the stream's subscription id; posted messages are handled one at a time, in order.
 */
import type { SubscriptionCapabilities, SubscriptionFilter } from "../protocol.js";
import type { EventHook, StreamEndCause } from "../hooks.js";
import { isObject, type JsonRpcMessage, type JsonRpcResultResponse, type RequestId } from "../jsonrpc.js";
import { gateFor, type Gate } from "./filter.js";
import { stampedJson, stampNotification } from "./stamp.js";
import type { Channel, OutgoingNotification, SendResult, StopReason, SubscriptionHandler } from "./types.js";

export { stampNotification, SUBSCRIPTION_ID_KEY } from "./stamp.js";

const SENT: SendResult = Object.freeze({ ok: true });
const REFUSED_CLOSED: SendResult = Object.freeze({ ok: false, reason: "closed" });
const REFUSED_NOT_ACKNOWLEDGED: SendResult = Object.freeze({ ok: false, reason: "not-acknowledged" });
const REFUSED_NOT_REQUESTED: SendResult = Object.freeze({ ok: false, reason: "not-requested" });
const REFUSED_URI: SendResult = Object.freeze({ ok: false, reason: "uri-not-honored" });
export const EMPTY_FILTER: SubscriptionFilter = Object.freeze({});
const NOTHING_DECLARED: SubscriptionCapabilities = Object.freeze({});
const CLOSED_GATE: Gate = new Map();

/** What a stream needs from the connection that carries it. */
export interface StreamHost {
  /** `json`, when given, is the message's JSON text, for transports that write text. */
  send(message: JsonRpcMessage, json?: string): void;
  readonly emit: EventHook;
  completeResult(id: RequestId): JsonRpcResultResponse;
  /** The stream is over and its id may be reused. */
  ended(stream: WorkerOwner): void;
  readonly mailboxSize: number;
}

export interface HandlerEntry {
  readonly handler: SubscriptionHandler<any, any>;
  readonly arg: unknown;
}

export type Phase = "subscribing" | "open" | "closed";

/** What a worker needs from its stream. */
export interface WorkerOwner {
  readonly id: RequestId;
  readonly meta: Readonly<Record<string, unknown>>;
  readonly phase: Phase;
  readonly host: StreamHost;
  stop(worker: Worker, reason: StopReason): void;
  fail(callback: string, error: unknown): void;
  end(cause: StreamEndCause, complete: boolean): Promise<void>;
}

export class Worker implements Channel {
  state: unknown;
  honored: SubscriptionFilter = EMPTY_FILTER;
  declared: SubscriptionCapabilities = NOTHING_DECLARED;
  #gate: Gate = CLOSED_GATE;
  /** The stream id's JSON text, spliced into each notification's text. */
  #idJson: string | undefined;
  #closed = false;
  #closeHandled = false;
  /** A handleMessage is running (synchronously on the stack, or awaited). */
  #busy = false;
  #onIdle: (() => void) | undefined;
  readonly #mailbox: unknown[] = [];

  constructor(
    readonly stream: WorkerOwner,
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
    const id = this.stream.id;
    const message = stampNotification(notification, id);
    this.stream.host.send(message, stampedJson(notification, message, (this.#idJson ??= JSON.stringify(id))));
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

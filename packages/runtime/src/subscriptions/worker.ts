/**
 * One handler's worker on a listen stream: its state, its mailbox, and the channel its
 * handler sends through. Sends are checked against what this worker honored and stamped
 * with the stream's subscription id; posted messages are handled one at a time, in order.
 * The handler never sees the worker: it gets a `Channel`, a narrow view with no state.
 */
import type { SubscriptionCapabilities, SubscriptionFilter } from "../protocol.js";
import type { EventHook } from "../hooks.js";
import { isObject, type RequestId } from "../jsonrpc.js";
import { gateFor, LIST_PARAMS, type Gate } from "./filter.js";
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
const ENDED: Promise<void> = Promise.resolve();

export interface HandlerEntry {
  readonly handler: SubscriptionHandler<any, any>;
  readonly arg: unknown;
}

/** What a worker's own callbacks can end its stream with (see `Teardown` in stream.ts). */
export type WorkerEnding =
  | { readonly why: "stopped"; readonly reason: StopReason; readonly by: Worker }
  | { readonly why: "failed"; readonly callback: string; readonly error: unknown }
  | { readonly why: "overflow" };

/** What a worker needs from its stream: who it is, whether it is open, one way out and one way to send. */
export interface WorkerOwner {
  readonly id: RequestId;
  readonly meta: Readonly<Record<string, unknown>>;
  /** Acknowledged and not over: sends may go out. */
  readonly isOpen: boolean;
  readonly mailboxSize: number;
  readonly emit: EventHook;
  /** Sends a notification the gate let through, stamped with the stream's id (`idJson` is its JSON text). */
  sendNotification(notification: OutgoingNotification, idJson: string): void;
  teardown(why: WorkerEnding): Promise<void>;
}

export class Worker {
  state: unknown;
  honored: SubscriptionFilter = EMPTY_FILTER;
  declared: SubscriptionCapabilities = NOTHING_DECLARED;
  /** What the handler sees of this worker. */
  readonly channel: Channel;
  #gate: Gate = CLOSED_GATE;
  /** The stream id's JSON text, spliced into each notification's text. */
  #idJson: string | undefined;
  /** Set by `end`: the worker takes nothing more. */
  #ended: Promise<void> | undefined;
  /** A handleMessage is running (synchronously on the stack, or awaited). */
  #busy = false;
  #onIdle: (() => void) | undefined;
  readonly #mailbox: unknown[] = [];

  constructor(
    readonly owner: WorkerOwner,
    readonly entry: HandlerEntry,
  ) {
    this.channel = new WorkerChannel(this);
  }

  get closed(): boolean {
    return this.#ended !== undefined;
  }

  accept(state: unknown, honored: SubscriptionFilter): void {
    this.state = state;
    this.honored = honored;
    this.#gate = gateFor(honored);
  }

  sendNotification(notification: OutgoingNotification): SendResult {
    if (this.#ended !== undefined) return REFUSED_CLOSED;
    if (!this.owner.isOpen) return REFUSED_NOT_ACKNOWLEDGED;
    const rule = this.#gate.get(notification.method);
    if (rule === undefined) return REFUSED_NOT_REQUESTED;
    if (rule !== true) {
      const named = notification.params?.[LIST_PARAMS.get(notification.method) ?? "uri"];
      if (typeof named !== "string" || !rule.has(named)) return REFUSED_URI;
    }
    this.owner.sendNotification(notification, (this.#idJson ??= JSON.stringify(this.owner.id)));
    return SENT;
  }

  post(message: unknown): boolean {
    if (this.#ended !== undefined) return false;
    const mailbox = this.#mailbox;
    // The size is read only when something waits: it is at least 1, and a synchronous handler leaves the mailbox empty.
    if (mailbox.length > 0 && mailbox.length >= this.owner.mailboxSize) {
      if (mailbox.some((waiting) => sameMessage(waiting, message))) {
        this.owner.emit({ type: "message-coalesced", id: this.owner.id });
        return true;
      }
      void this.owner.teardown({ why: "overflow" });
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
    if (this.#busy || this.#ended !== undefined || !this.owner.isOpen) return;
    this.#busy = true;
    const { handler, arg } = this.entry;
    while (this.#mailbox.length > 0 && this.#ended === undefined) {
      let result: unknown;
      try {
        result = handler.handleMessage(this.#mailbox.shift(), this.channel, this.state, arg);
      } catch (error) {
        void this.owner.teardown({ why: "failed", callback: "handleMessage", error });
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

  /**
   * The one way a worker ends: it takes no more sends or messages (the mailbox is
   * dropped), and, when `notify`, its handler's handleClose runs once, after any
   * handleMessage in flight. `notify` is false when the handler ended the stream itself
   * or never took it. Idempotent: the first call decides.
   */
  end(notify: boolean): Promise<void> {
    if (this.#ended !== undefined) return this.#ended;
    this.#mailbox.length = 0;
    this.#ended = ENDED; // closed from here on, synchronously
    if (notify) this.#ended = this.#handleClose();
    return this.#ended;
  }

  async #handleClose(): Promise<void> {
    await this.#idle();
    const { handler, arg } = this.entry;
    if (handler.handleClose === undefined) return;
    try {
      await handler.handleClose(this.channel, this.state, arg);
    } catch (error) {
      this.owner.emit({ type: "handler-error", id: this.owner.id, callback: "handleClose", error });
    }
  }

  #settleAndContinue(result: unknown): void {
    this.#busy = false;
    if (this.#settle(result)) this.start();
    else this.#becomeIdle();
  }

  #failAndStop(error: unknown): void {
    this.#busy = false;
    if (this.#ended === undefined) void this.owner.teardown({ why: "failed", callback: "handleMessage", error });
    this.#becomeIdle();
  }

  /** Applies one handleMessage result; false when the worker must not go on. */
  #settle(result: unknown): boolean {
    if (isObject(result) && "stream" in result) {
      this.state = result["stream"]; // kept even when torn down meanwhile: handleClose sees it
      return this.#ended === undefined;
    }
    if (this.#ended !== undefined) return false;
    if (isObject(result) && "stop" in result) void this.owner.teardown({ why: "stopped", reason: result["stop"] as StopReason, by: this });
    else void this.owner.teardown({ why: "failed", callback: "handleMessage", error: new TypeError("handleMessage returned neither { stream } nor { stop }") });
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
}

/** The handler's view of its worker: what it may read and do, nothing it could break. */
class WorkerChannel implements Channel {
  readonly #worker: Worker;

  constructor(worker: Worker) {
    this.#worker = worker;
  }

  get requestId(): RequestId {
    return this.#worker.owner.id;
  }
  get meta(): Readonly<Record<string, unknown>> {
    return this.#worker.owner.meta;
  }
  get honored(): SubscriptionFilter {
    return this.#worker.honored;
  }
  get closed(): boolean {
    return this.#worker.closed;
  }
  sendNotification(notification: OutgoingNotification): SendResult {
    return this.#worker.sendNotification(notification);
  }
  post(message: unknown): boolean {
    return this.#worker.post(message);
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

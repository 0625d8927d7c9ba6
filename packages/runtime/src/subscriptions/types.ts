/**
 * The subscription handler contract (`subscriptions/listen`), as the project's contract
 * document states it: one worker per stream, with state that lives as long as the stream
 * and a mailbox the application's event source posts to.
 */
import type { SubscriptionCapabilities, SubscriptionFilter } from "../protocol.js";
import type { JsonObject, RequestId } from "../jsonrpc.js";

export type Awaitable<T> = T | Promise<T>;

/**
 * Why a handler ended its stream. It never reaches the client (every stop yields the same
 * `complete` result); it reaches `onEvent`. "normal" and "shutdown" are clean exits.
 */
export type StopReason = "normal" | "shutdown" | { readonly shutdown: unknown } | (string & {}) | Error;

export type SubscribeResult<State> = { stream: State } | { stream: State; honored: SubscriptionFilter } | { stop: StopReason };

export type MessageResult<State> = { stream: State } | { stop: StopReason };

export interface SubscriptionHandler<State = unknown, Arg = unknown> {
  /** Accepts (`{ stream }`), narrows (`{ stream, honored }`) or rejects (`{ stop }`) a listen request. */
  subscribe(filter: SubscriptionFilter, channel: Channel, arg: Arg): Awaitable<SubscribeResult<State>>;
  /** Called once per posted message, in order, never two at a time for one stream. */
  handleMessage(message: unknown, channel: Channel, state: State, arg: Arg): Awaitable<MessageResult<State>>;
  /** Called exactly once when the stream is torn down from outside; the channel is already closed. */
  handleClose?(channel: Channel, state: State, arg: Arg): Awaitable<unknown>;
  /** Which notification types this handler can emit; folded into `server/discover`. */
  subscriptionCapabilities?(channel: Channel, arg: Arg): SubscriptionCapabilities;
}

/** A notification as a handler hands it over; `jsonrpc` is added by the runtime. */
export interface OutgoingNotification {
  jsonrpc?: "2.0";
  method: string;
  params?: JsonObject;
}

/**
 * Why `sendNotification` wrote nothing:
 * - "closed": the stream is over;
 * - "not-acknowledged": called inside `subscribe`, before the ack (post a message instead);
 * - "not-requested": the client did not ask for this type, or the handler did not honor it;
 * - "uri-not-honored": a resource update for a URI outside the honored `resourceSubscriptions`.
 */
export type RefusalReason = "closed" | "not-acknowledged" | "not-requested" | "uri-not-honored";

export type SendResult = { readonly ok: true } | { readonly ok: false; readonly reason: RefusalReason };

export interface Channel {
  /** The JSON-RPC id of the listen request, which is also the subscription id. */
  readonly requestId: RequestId;
  /** The request `_meta` plus what the transport adds (e.g. `principal`), read-only. */
  readonly meta: Readonly<Record<string, unknown>>;
  /** What this handler honors on this stream (empty until the ack). */
  readonly honored: SubscriptionFilter;
  /** Whether the stream is over; sends are then refused. */
  readonly closed: boolean;
  /** Stamps and writes a notification, or refuses it without writing anything. */
  sendNotification(notification: OutgoingNotification): SendResult;
  /** Puts a message in this stream's mailbox; false when it was not accepted (closed, overflow). */
  post(message: unknown): boolean;
}

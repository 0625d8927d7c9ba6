/**
 * Notifications a request handler sends about its own request: progress, only when the
 * request's `_meta` carried a `progressToken`, and log messages, only when it set a log level
 * and only at or above it. They travel on the request's own response ahead of its result;
 * once the result is on its way (or the request was cancelled, or the connection went away)
 * every send is refused, so nothing follows the answer.
 */
import type { ClientKey } from "./subscriptions/slots.js";
import {
  META_KEYS,
  type LoggingLevel,
  type LoggingMessageNotificationParams,
  type ProgressNotificationParams,
  type ProgressToken,
  type RequestMetaObject,
  type ServerNotificationMethod,
} from "./protocol.js";
import type { JsonObject, JsonRpcMessage, RequestId } from "./jsonrpc.js";

const LOG_LEVEL_KEY: string = META_KEYS.logLevel;

declare const MERGED: unique symbol;

/**
 * A handler's `_meta` (`ctx.meta`, `channel.meta`): only `mergeMeta` (meta.ts) makes one, and
 * every request scope and stream takes one, so no path into a handler (either era) can hand
 * it client-sent transport keys.
 */
export type HandlerMeta = Readonly<Record<string, unknown>> & { readonly [MERGED]: true };
/** Not namespaced in the schema, so absent from META_KEYS; typed against the generated `_meta` shape. */
export const PROGRESS_TOKEN_KEY = "progressToken" satisfies keyof RequestMetaObject;

/**
 * Each log level's severity, lowest first, in the RFC 5424 order the schema's LoggingLevel
 * description refers to. The schema's enum is listed alphabetically and the generated maps
 * carry no order, so the order lives here; a record over the generated `LoggingLevel` makes
 * a level added to the schema fail the type check until it is placed.
 */
export const LOG_LEVEL_SEVERITY: Readonly<Record<LoggingLevel, number>> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === "string" && Object.hasOwn(LOG_LEVEL_SEVERITY, value);
}

/** A progress update as a handler gives it; the runtime stamps the request's token. */
export type ProgressUpdate = Omit<ProgressNotificationParams, "progressToken">;
/** The schema allows any JSON value as `data` (the generated type narrows it to an object). */
export type LogMessage = Omit<LoggingMessageNotificationParams, "data"> & { data: unknown };

/**
 * Why a request-scoped send wrote nothing:
 * - "closed": the result is on its way, the request was cancelled, or the connection is gone;
 * - "not-requested": the request carried no `progressToken` (progress) or no log level (logs);
 * - "below-level": the message is less severe than the level the request set;
 * - "not-increasing": the progress is not greater than the last one sent for this request.
 */
export type RequestRefusalReason = "closed" | "not-requested" | "below-level" | "not-increasing";
export type RequestSendResult = { readonly ok: true } | { readonly ok: false; readonly reason: RequestRefusalReason };

/** What a request handler learns besides its params, and how it reports on its request. */
export interface RequestContext {
  readonly requestId: RequestId;
  /** The request `_meta` plus what the transport adds (e.g. `principal`). */
  readonly meta: Readonly<Record<string, unknown>>;
  /** Aborted when the client cancels the request or the connection goes away. */
  readonly signal: AbortSignal;
  /**
   * Which client the request counts against for per-client shares (`subscriptions/slots.ts`
   * `clientKey`: the principal, else the peer address, else the connection). Absent on a
   * context made outside a connection.
   */
  readonly client?: ClientKey;
  /** Sends `notifications/progress` stamped with the request's `progressToken`. */
  sendProgress(update: ProgressUpdate): RequestSendResult;
  /** Sends `notifications/message` when the request's log level lets this level through. */
  sendLog(message: LogMessage): RequestSendResult;
  /**
   * Closes the SSE stream that will carry this request's result, without ending it, where
   * the client can resume it (a 2025-11-25 session over HTTP): the client reconnects after
   * the stream's `retry` interval and gets what it missed, the result included. Lets a
   * long request hold no connection. False where there is no such stream.
   */
  closeSseStream(): boolean;
}

const SENT: RequestSendResult = Object.freeze({ ok: true });
const refusal = (reason: RequestRefusalReason): RequestSendResult => Object.freeze({ ok: false, reason });
const CLOSED = refusal("closed");
const NOT_REQUESTED = refusal("not-requested");
const BELOW_LEVEL = refusal("below-level");
const NOT_INCREASING = refusal("not-increasing");

/** Where a scope writes: the request's connection, which drops writes once it is closed. */
export interface NotificationSink {
  send(message: JsonRpcMessage): void;
  closeStream?(): boolean;
}

/**
 * One request's context; the connection finishes it right before the result is sent. Its
 * abort signal is made on first use: most handlers never read it, and a request cancelled
 * before that still sees an aborted signal.
 */
export class RequestScope implements RequestContext {
  readonly #sink: NotificationSink;
  #finished = false;
  #aborted = false;
  #controller: AbortController | undefined;
  /** Told once when the request is aborted (see onAbort). */
  #abortListeners: Array<() => void> | undefined;
  #lastProgress = -Infinity;

  constructor(
    readonly requestId: RequestId,
    readonly meta: HandlerMeta,
    sink: NotificationSink,
    readonly client: ClientKey,
  ) {
    this.#sink = sink;
  }

  /** The key of the connection's table of running requests. */
  get id(): RequestId {
    return this.requestId;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  /** Whether the request was cancelled (or its connection went away). */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** Cancels the request: its signal aborts, every later send is refused. Idempotent. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#controller?.abort();
    const listeners = this.#abortListeners;
    this.#abortListeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener();
  }

  /**
   * Calls `listener` once, when the request is aborted (not when it already was: read
   * `aborted` first); kept until then or until the scope is dropped with its request. For
   * the runtime's own waits (middleware.ts): an AbortController costs more than a whole
   * request served without one, so such a wait must not make the signal.
   */
  onAbort(listener: () => void): void {
    if (!this.#aborted) (this.#abortListeners ??= []).push(listener);
  }

  /** From now on every send is refused: the result goes next, and nothing after it. */
  finish(): void {
    this.#finished = true;
  }

  sendProgress(update: ProgressUpdate): RequestSendResult {
    if (typeof update?.progress !== "number" || Number.isNaN(update.progress)) throw new TypeError("sendProgress: progress must be a number");
    if (this.#isOver()) return CLOSED;
    const token = this.meta[PROGRESS_TOKEN_KEY] as ProgressToken | undefined;
    if (token === undefined) return NOT_REQUESTED;
    if (!(update.progress > this.#lastProgress)) return NOT_INCREASING;
    this.#lastProgress = update.progress;
    this.#sink.send({
      jsonrpc: "2.0",
      method: "notifications/progress" satisfies ServerNotificationMethod,
      params: { ...update, progressToken: token } as JsonObject,
    });
    return SENT;
  }

  sendLog(message: LogMessage): RequestSendResult {
    if (!isLoggingLevel(message?.level)) throw new TypeError(`sendLog: level must be one of ${Object.keys(LOG_LEVEL_SEVERITY).join(", ")}`);
    if (this.#isOver()) return CLOSED;
    const requested = this.meta[LOG_LEVEL_KEY];
    if (!isLoggingLevel(requested)) return NOT_REQUESTED;
    if (LOG_LEVEL_SEVERITY[message.level] < LOG_LEVEL_SEVERITY[requested]) return BELOW_LEVEL;
    this.#sink.send({ jsonrpc: "2.0", method: "notifications/message" satisfies ServerNotificationMethod, params: { ...message } as JsonObject });
    return SENT;
  }

  closeSseStream(): boolean {
    return !this.#isOver() && (this.#sink.closeStream?.() ?? false);
  }

  #isOver(): boolean {
    return this.#finished || this.#aborted;
  }
}

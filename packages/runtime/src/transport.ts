/**
 * The transport contract: what moves MCP messages over one channel, for a server or a
 * client. Pull (`receiveMessage`) and push (`subscribe`) are both part of it; a server
 * uses push when the transport offers it.
 */
import type { JsonRpcMessage } from "./jsonrpc.js";

/** Optional features a transport declares; "push" means `subscribe` delivers events. */
export type TransportCapability = "push" | "compression" | "encryption" | (string & {});

/**
 * Facts a transport knows about a message that the message does not carry, for example
 * `{ principal }` from HTTP authentication. The server merges it into `channel.meta` and
 * the request context.
 */
export type MessageContext = Readonly<Record<string, unknown>>;

/**
 * One received message. Wire transports hand over the raw text (a string) and leave
 * decoding to the receiver, so that malformed JSON is answered with a parse error by the
 * server instead of being lost inside the transport; in-process transports hand over the
 * object itself.
 */
export interface ReceivedMessage {
  readonly type: "message";
  readonly message: JsonRpcMessage | string;
  readonly context?: MessageContext;
}

/**
 * "input-ended": the peer will send nothing more, but the output is still open (stdin EOF).
 * The receiver finishes what it owes (answers to requests still running), then closes the
 * transport; the transport bounds how long that may take.
 */
export type TransportEvent =
  | ReceivedMessage
  | { readonly type: "closed"; readonly reason?: unknown }
  | { readonly type: "input-ended" }
  | { readonly type: "error"; readonly error: unknown };

export type TransportListener = (event: TransportEvent) => void;

/** The parts of a notification's text that every stream of one fan-out shares (see `sendNotificationText`). */
export interface SharedText {
  readonly before: string;
  readonly after: string;
}

/**
 * A settled send: transports that finish a send synchronously may return this one shared
 * promise, and the server then attaches no handler to it (a fan-out to 10,000 streams
 * spares 10,000 promise reactions).
 */
export const SENT: Promise<void> = Promise.resolve();

export interface Transport {
  /** Opens the channel; resolves once messages can flow. */
  connect(): Promise<void>;
  /**
   * Sends one message. A synchronous request/response transport may resolve with the
   * reply inline; every other transport resolves with nothing. `json`, when given, is
   * exactly `JSON.stringify(message)`, already built (one event fanned out to many streams
   * is serialised once): a transport that writes text writes it instead of serialising
   * again; one that hands objects over ignores it.
   */
  sendMessage(message: JsonRpcMessage, json?: string): Promise<void | JsonRpcMessage>;
  /**
   * Sends one notification given only as its JSON text: a stream notification fanned out
   * to many streams, whose text is spliced per stream and for which no message object is
   * built. Optional: a transport that writes text implements it; for one that does not,
   * the server builds the message and calls `sendMessage`. `shared`, when given, says that
   * `json` is `shared.before + idJson + shared.after` with the same `shared` object for
   * every stream of the fan-out: a transport may encode those parts once and reuse the
   * bytes (a large notification then costs no copy per stream).
   */
  sendNotificationText?(json: string, shared?: SharedText, idJson?: string): Promise<void>;
  /** Pull model: the next received message; rejects with `TransportClosedError` once closed. */
  receiveMessage(): Promise<ReceivedMessage>;
  /** Closes the channel; the peer and the subscriber see a "closed" event. Idempotent. */
  close(): Promise<void>;
  /**
   * Optional: ends a one-request transport whose request the client cancelled, so nothing
   * answers it (HTTP: a response stream with no events, not an error). Without it, `close`.
   */
  abandon?(): Promise<void>;
  /** Push model: deliver every later event (and any still buffered) to `listener`. */
  subscribe?(listener: TransportListener): void;
  capabilities?(): readonly TransportCapability[];
  /** Whether messages can still flow; absent means always. */
  connected?(): boolean;
  /**
   * Who is at the other end (HTTP: the socket's remote address), for per-client limits
   * when no principal is known; absent: the connection itself is the client.
   */
  remoteAddress?(): string | undefined;
  /**
   * Closes the connection carrying the response without ending it, where the client can
   * resume it (a legacy session's SSE stream): the client reconnects and gets the rest.
   * False where there is no such stream.
   */
  closeStream?(): boolean;
}

/**
 * The reason in a "closed" event when the transport cut a client that did not read what
 * it was sent (its buffered output was over budget): the server reports such streams as
 * evicted rather than gone.
 */
export class SlowConsumerEvicted extends Error {
  constructor(message = "the client did not read its stream and was cut off") {
    super(message);
    this.name = "SlowConsumerEvicted";
  }
}

/** Thrown by `receiveMessage` and `sendMessage` once the transport is closed. */
export class TransportClosedError extends Error {
  constructor(message = "transport closed") {
    super(message);
    this.name = "TransportClosedError";
  }
}

export type TransportClass = abstract new (...args: any[]) => Transport;

const registry = new Map<string, TransportClass>();

/** Makes a transport class findable by name with `getTransport`; built-ins register themselves. */
export function registerTransport(name: string, transportClass: TransportClass): void {
  registry.set(name, transportClass);
}

/**
 * The transport class for a name ("stdio", "test", "inprocess", "http", or any registered
 * name) or, given a class, that class after checking it implements the contract.
 */
export function getTransport(nameOrClass: string | TransportClass): TransportClass {
  if (typeof nameOrClass === "function") {
    const proto = nameOrClass.prototype as Partial<Transport> | undefined;
    for (const member of ["connect", "sendMessage", "receiveMessage", "close"] as const) {
      if (typeof proto?.[member] !== "function") {
        throw new TypeError(`${nameOrClass.name || "the class"} is not a transport: it has no ${member}() method`);
      }
    }
    return nameOrClass;
  }
  const found = registry.get(nameOrClass);
  if (found === undefined) {
    const known = [...registry.keys()].sort().join(", ");
    throw new TypeError(`unknown transport "${nameOrClass}"; known transports: ${known}`);
  }
  return found;
}

/** Whether a transport (instance or class) delivers events by push (`subscribe`). */
export function supportsPush(transport: Transport | TransportClass | string): boolean {
  const target: Partial<Transport> =
    typeof transport === "string" ? getTransport(transport).prototype : typeof transport === "function" ? transport.prototype : transport;
  if (typeof target.subscribe !== "function") return false;
  // Without a capabilities() declaration a subscribe method is taken at its word.
  if (typeof target.capabilities !== "function") return true;
  try {
    return target.capabilities.call(target).includes("push");
  } catch {
    return true; // a prototype-level call may need instance state; subscribe exists
  }
}

/**
 * The seam between the core (the revision this runtime was generated for) and an era of
 * older clients: the initialize era (2024-11-05 .. 2025-11-25), which legacy/ implements.
 * The core calls an era only through the interfaces below and imports nothing of legacy/:
 * `Server` is given its era as a factory (`EraFactory`). The main entry's `createServer`
 * (create-server.ts) passes the initialize era; the no-era entry (modern.ts) passes
 * `modernOnly`, the core's own answer to an `initialize`: the error naming the versions it
 * speaks. So a server built from modern.ts loads no module of legacy/.
 *
 * The era sees every message of a connection before the core dispatches it (`route`), holds
 * the session a connection carries (`EraSession`, whose hooks the connection calls), serves
 * the HTTP requests that are its own (`EraHttp`: the endpoint classifies each request once,
 * where it enters, and hands the era's to it), and ends with the server (`close`).
 */
import { META_KEYS, type Implementation, type ServerCapabilities } from "./protocol.js";
import type { EventHook } from "./hooks.js";
import {
  errorResponse,
  INVALID_PARAMS,
  isObject,
  type Classified,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from "./jsonrpc.js";
import type { HandlerMeta } from "./meta.js";
import type { NotificationSink } from "./request-notifications.js";
import type { ClientKey, SlotRefusal } from "./subscriptions/slots.js";
import type { HandlerEntry } from "./subscriptions/stream.js";
import type { TraceFacts } from "./tracing.js";
import type { MessageContext, Transport } from "./transport.js";
import type { HttpRequest, HttpResponse } from "./transports/http-io.js";
import type { HttpRejection, ParsedBody } from "./transports/http-request.js";
import type { ExchangeOptions } from "./transports/http-exchange.js";

/** The method that opened a connection before 2026-07-28; the core knows only how to refuse it. */
export const INITIALIZE_METHOD = "initialize";

/** A request's further rounds (an era's input rounds): its signal, its handler run again in the same scope, and its requests to the client. */
export interface Rounds {
  readonly signal: AbortSignal;
  dispatch(request: JsonRpcRequest): Promise<JsonRpcResponse>;
  /** One request to the client through the server's input middleware; `send` sends the params the chain ends with. */
  ask(method: string, params: JsonObject, send: (params: JsonObject) => Promise<JsonObject>): Promise<JsonObject>;
}

/**
 * An era session's last step before an answer leaves: more input rounds (see
 * legacy/input-rounds.ts), then the era's shape. Synchronous when no round is needed (the
 * common answer spends no promise on it).
 */
export type Translate = (response: JsonRpcResponse, rounds: Rounds) => JsonRpcResponse | Promise<JsonRpcResponse>;

/** A connection as an era sees it. */
export interface EraConnection {
  /** The session this connection carries: bound by the era (stdio `initialize`), or given with the transport (an HTTP session's POST). */
  eraSession: EraSession | undefined;
  /** Whether a request of the core's revision was served here (then the era refuses `initialize`). */
  readonly modernSeen: boolean;
  /** The client a session opened here counts against (slots.ts `clientKey`). */
  clientKey(context: MessageContext | undefined): ClientKey;
  send(message: JsonRpcMessage): void;
  /** Runs a request's handler (tracked for cancellation) and sends the translated response; false when it was cancelled. */
  serve(request: JsonRpcRequest, meta: HandlerMeta, translate: Translate): Promise<boolean>;
  cancelRequest(id: RequestId): void;
  /** Ends the connection's transport (an HTTP POST whose request was cancelled gets no answer). */
  abandon(): Promise<void>;
  closeStream?(): boolean;
}

/** An era's session, as the connection carrying it calls it. */
export interface EraSession {
  /** The `_meta` the session's requests are served with (what a URI resolves to when scopes are checked). */
  readonly meta: Readonly<Record<string, unknown>>;
  /** Takes one message the connection received. */
  receive(connection: EraConnection, classified: Classified, context: MessageContext | undefined): void;
  /** The peer's input ended (stdin EOF): answers to what the session asked its client can no longer arrive. */
  inputEnded(): void;
  /** Where a request of this session served on `connection` writes its own notifications. */
  requestSink(connection: NotificationSink): NotificationSink;
  /** What a span learns from the session. */
  traceFacts(): TraceFacts;
  /** The connection's transport went away. */
  connectionGone(): void;
}

/** What an era is given by the server it serves in. */
export interface EraHost {
  readonly emit: EventHook;
  readonly mailboxSize: number;
  readonly subscriptionHandlers: readonly HandlerEntry[];
  readonly info: Implementation;
  readonly instructions: string | undefined;
  /** The versions of the core's revision, named when `initialize` is refused. */
  readonly modernVersions: readonly string[];
  capabilities(meta: Readonly<Record<string, unknown>>): ServerCapabilities;
  hasMethod(method: string): boolean;
  /** Takes one of the server's listen slots from `owner`'s client share, or says which limit was reached. */
  reserveStream(owner: { readonly client: ClientKey }): SlotRefusal | undefined;
  releaseStream(owner: { readonly client: ClientKey }): void;
  /** Serves one transport whose messages all belong to `session`. */
  connect(transport: Transport, session: EraSession): Promise<void>;
}

/** An era of clients older than the core's revision. */
export interface Era {
  /** Sessions open. */
  readonly size: number;
  /** Takes the message when it belongs to the era: true when it was handled there. Cheap for the core's own messages. */
  route(connection: EraConnection, classified: Classified, context: MessageContext | undefined): boolean;
  /** The era's HTTP destinations; undefined when it serves none over HTTP. */
  readonly http: EraHttp | undefined;
  /** Server shutdown: every session ends. */
  close(): Promise<void>;
}

export type EraFactory<E extends Era = Era> = (host: EraHost) => E;

/** The header naming an HTTP session (an era's: the core's revision has none), read once where a request enters. */
export const SESSION_HEADER = "mcp-session-id";

/** Where an HTTP request of an era goes, decided before its body is read: a session it names, an HTTP+SSE stream it opens, or a POST to one. */
export type EraDestination = "session" | "open" | "sse-post";

/** The era's side of the HTTP endpoint (transports/http-core.ts). */
export interface EraHttp {
  /** The era's destination for a request, or undefined for the core's POST path. */
  destination(req: HttpRequest, sessionId: string | undefined): EraDestination | undefined;
  serve(destination: EraDestination, exchange: EraHttpExchange): Promise<void> | void;
  /** A POST whose body is an `initialize` (`isEraInitialize`): a new session. */
  initialize(exchange: EraHttpExchange, message: JsonRpcRequest): Promise<void>;
}

/** What the HTTP endpoint hands an era for one request. */
export interface EraHttpExchange {
  readonly req: HttpRequest;
  readonly res: HttpResponse;
  readonly sessionId: string | undefined;
  /** The endpoint's SSE limits and observers. */
  readonly sse: ExchangeOptions;
  /** The transport's context for this request (the authenticated principal, when there is one). */
  readonly context: MessageContext | undefined;
  /** The client's address as the endpoint found it: its peer, or what a trusted proxy says. */
  readonly clientAddress: string | undefined;
  reject(rejection: HttpRejection): void;
  /** Reads and decodes the body, or says why it was refused (to be answered with `reject`). */
  readMessage(): Promise<ParsedBody | HttpRejection>;
  /** True once the server is closing (nothing new is opened). */
  readonly closing: boolean;
  /**
   * Why the caller may not send `message` (the endpoint's `authorize` step), with the session's
   * `_meta` deciding what a URI resolves to and its principal (the one its handlers see) what
   * is visible.
   */
  forbidden(message: JsonRpcMessage, sessionMeta: Readonly<Record<string, unknown>>, sessionPrincipal: unknown): HttpRejection | undefined;
}

/** An `initialize` in the core revision's own shape (its `_meta` names a protocol version): that revision's removed method, not an older client. */
export function carriesModernMeta(request: JsonRpcRequest): boolean {
  const meta = request.params?.["_meta"];
  return isObject(meta) && META_KEYS.protocolVersion in meta;
}

/**
 * An `initialize` request of an older client. The body decides, whatever headers come with
 * it (bridges from stdio send `Mcp-Method: initialize` too); only one in the core revision's
 * own shape (its `_meta` names a version) stays that revision's.
 */
export function isEraInitialize(message: JsonRpcMessage): boolean {
  return "method" in message && "id" in message && message.method === INITIALIZE_METHOD && !carriesModernMeta(message);
}

/** The answer to an `initialize` no era serves: -32602 naming the versions this server speaks. */
export function unsupportedVersion(id: RequestId, requested: string, supported: readonly string[]): JsonRpcMessage {
  return errorResponse(id, INVALID_PARAMS, `Unsupported protocol version "${requested}"; this server supports ${supported.join(", ")}`, {
    supported: [...supported],
    requested,
  });
}

/** The core without an era: an older client's `initialize` is refused with the versions it speaks; every other message is the core's. */
export const modernOnly: EraFactory = (host) => ({
  size: 0,
  http: undefined,
  route(connection, classified) {
    if (classified.kind !== "request" || !isEraInitialize(classified.message)) return false;
    const request = classified.message;
    connection.send(unsupportedVersion(request.id, String(request.params?.["protocolVersion"]), host.modernVersions));
    return true;
  },
  close: () => Promise.resolve(),
});

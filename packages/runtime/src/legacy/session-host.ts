/**
 * What a legacy session (session.ts) needs from the world around it: the connection a message
 * came on, where its unsolicited notifications go, the server that hosts it, its bounds, and
 * the replicas it is shared with. Kept apart so that session.ts holds the session itself.
 */
import type { EventHook } from "../hooks.js";
import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse, RequestId } from "../jsonrpc.js";
import type { Implementation, ServerCapabilities } from "../protocol.js";
import type { Translate } from "../era.js";
import type { HandlerMeta } from "../meta.js";
import type { HandlerEntry } from "../subscriptions/stream.js";
import type { SlotRefusal } from "../subscriptions/slots.js";
import type { RevisionCodec } from "./codec.js";
import type { RemoteAnswers } from "./server-requests.js";
import type { SessionRecord } from "./session-store.js";

/** What a session needs from the connection a message arrived on. */
export interface SessionConnection {
  send(message: JsonRpcMessage): void;
  /** Runs a shared request's handler (tracked for cancellation) and sends the translated response; false when it was cancelled. */
  serve(request: JsonRpcRequest, meta: HandlerMeta, translate: Translate): Promise<boolean>;
  cancelRequest(id: RequestId): void;
  /** Ends the connection's transport (an HTTP POST whose request was cancelled gets no answer). */
  abandon(): Promise<void>;
}

/** Where a session's unsolicited notifications go: stdout, the HTTP session's GET stream, or the session store. */
export interface SessionOutput {
  send(message: JsonRpcMessage): void;
  close?(): void;
}

/**
 * What a session shares with the other replicas when its server has a session store
 * (shared.ts): its record on every change, its end, and answers its client POSTs elsewhere.
 */
export interface SessionSharing {
  /** The session was initialized: stored before the client learns its id is usable. */
  created(record: SessionRecord): Promise<void>;
  saved(record: SessionRecord): Promise<void>;
  /** The session ended here: it ends everywhere. */
  ended(id: string): void;
  /** A `notifications/cancelled` for a request not running here: every replica's copy cancels it if it runs there. */
  cancelled(id: string, requestId: RequestId): void;
  /** An answer no request of this replica waits for: handed to the replica that waits, if one does. */
  answer(id: string, response: JsonRpcResponse): Promise<boolean>;
  /** Where this session's requests to its client get their ids and answers. */
  requests(id: string): RemoteAnswers;
}

/** What one session may keep of its client's requests (LegacyOptions). */
export interface SessionBounds {
  /** UTF-8 bytes of the `initialize` capabilities and clientInfo kept. */
  readonly maxInitializeBytes: number;
  /** `resources/subscribe` URIs held at once, and the length of each. */
  readonly maxSubscriptions: number;
  readonly maxSubscriptionUriLength: number;
}

/** What a session needs from the server; `Session` is the session it hosts (session.ts, not imported here: it imports this). */
export interface SessionHost<Session> extends SessionBounds {
  readonly emit: EventHook;
  readonly mailboxSize: number;
  readonly subscriptionHandlers: readonly HandlerEntry[];
  /** One codec per initialize-era revision served, newest first. */
  readonly codecs: readonly RevisionCodec[];
  readonly info: Implementation;
  readonly instructions: string | undefined;
  /** Requests to the client that may wait for answers at once, and how long each waits. */
  readonly maxClientRequests: number;
  readonly clientRequestTimeoutMs: number;
  capabilities(meta: Readonly<Record<string, unknown>>): ServerCapabilities;
  hasMethod(method: string): boolean;
  /** Takes one of the server's listen slots for this session's implicit stream, from its client's share; or says which limit was reached. */
  reserveStream(session: Session): SlotRefusal | undefined;
  releaseStream(session: Session): void;
  /** The session is over; the registry forgets it. */
  ended(session: Session): void;
  /** Set when sessions are shared by several replicas through a store. */
  readonly sharing: SessionSharing | undefined;
}

/** How a session ends: DELETE or a refused initialize, its client gone (EOF, idle expiry), or server shutdown. */
export type SessionEnding = "cancelled" | "client-gone" | "shutdown";

/**
 * Where legacy HTTP sessions live when several server processes (replicas) serve one
 * endpoint: a `LegacySessionStore` holds what any replica needs to serve any
 * `Mcp-Session-Id` (the negotiated revision, the client's capabilities and info, its log
 * level and subscriptions), the replay window its GET stream is read from, and the way an
 * answer to a server-to-client request reaches the replica whose handler waits for it.
 *
 * Without a store (`legacy.store` unset, the default) sessions live in the process that
 * opened them, as they always did. A store is the application's: the runtime has no
 * dependency beyond Node, and the Redis implementation comes with the Redis event source
 * (`create-mcp-handler --event-source redis`).
 */
import type { JsonObject, JsonRpcResponse } from "../jsonrpc.js";

/** What a replica needs to serve a session it did not open. JSON all through. */
export interface SessionRecord {
  readonly id: string;
  /** The negotiated protocol version. */
  readonly version: string;
  /** The `_meta` a newer client would send: version, client capabilities and info, log level. */
  readonly meta: JsonObject;
  /** The principal the opening request was authenticated as (a session belongs to it), if any. */
  readonly principal?: unknown;
  /** Whether `notifications/initialized` was received: the list-change stream is open. */
  readonly ready: boolean;
  /** The URIs of `resources/subscribe`, in order. */
  readonly subscriptions: readonly string[];
}

/**
 * A change another replica made, as every replica hears it (`cancelled`: the client cancelled
 * one of its requests); `reconnected`: this replica's connection to the store is back after a
 * gap, in which changes and events were missed, and the store may have lost sessions (a
 * broker that restarted empty).
 */
export type SessionChange =
  | { readonly type: "saved"; readonly record: SessionRecord }
  | { readonly type: "ended"; readonly id: string }
  | { readonly type: "cancelled"; readonly id: string; readonly requestId: string | number }
  | { readonly type: "reconnected" };

/** One event of a session's GET stream as the store keeps it: its place in the session and its JSON-RPC text. */
export interface StoredEvent {
  readonly seq: number;
  readonly json: string;
}

/** How long a session lives without its client (see `LegacyOptions.idleMs`, `maxSilentMs`) and what its window keeps. */
export interface SessionKeeping {
  readonly idleMs: number;
  readonly maxSilentMs: number;
  readonly maxEvents: number;
  readonly maxBytes: number;
}

/** Stops a subscription made with `watch`, `follow` or `awaitAnswer`. Calling it again does nothing. */
export type StopListening = () => void;

export interface LegacySessionStore {
  /** Stores a new session; it expires after `keeping.idleMs` without `touch`. Rejects when the store cannot be written. */
  create(record: SessionRecord, keeping: SessionKeeping): Promise<void>;
  /** The session's record, or undefined when it ended or expired. */
  load(id: string): Promise<SessionRecord | undefined>;
  /** Replaces the record (setLevel, subscribe, initialized); every replica holding a copy hears it through `watch`. */
  save(record: SessionRecord): Promise<void>;
  /**
   * Stores the session again when the store no longer has it (it came back empty after a
   * `reconnected`); true when it did. Its window starts over empty, numbered above every event
   * it held before, so a client's `Last-Event-ID` still reads as "before these".
   */
  restore?(record: SessionRecord, keeping: SessionKeeping): Promise<boolean>;
  /**
   * False while the store is connected but does not answer (a partition): a new session is
   * refused at once (HTTP 503 with Retry-After) instead of waiting for a command to time out.
   */
  readonly ready?: boolean;
  /** Ends the session everywhere: its record, window and waits are dropped, and every replica hears it. */
  end(id: string): Promise<void>;
  /**
   * Keeps the session alive for another `idleMs`. `byClient`: the client sent something (a
   * request); otherwise a replica carrying its GET stream asks, and that counts only until
   * `maxSilentMs` after the client last sent something. Never throws (best effort).
   */
  touch(id: string, byClient: boolean, keeping: SessionKeeping): void;
  /** Which of `ids` still exist (the others expired): each replica's sweep ends its copies of the rest. */
  alive(ids: readonly string[]): Promise<ReadonlySet<string>>;
  /** Tells every replica the client cancelled `requestId` (the replica running it aborts it); never throws (best effort, as the notification is). */
  cancel(id: string, requestId: string | number): void;
  /** Hears every `save`, `end` and `cancel`, from every replica. */
  watch(listener: (change: SessionChange) => void): StopListening;

  /**
   * Appends one event to the session's GET stream and returns its seq; undefined when the
   * session is gone. The window is bounded by `keeping` as the in-process one is. False:
   * another replica is the session's writer (see `claim`), and nothing was appended.
   */
  append(id: string, json: string, keeping: SessionKeeping): Promise<number | undefined | false>;
  /**
   * One replica writes a session's events: the one that created or restored it, until another
   * claims it. Takes the writing of each of `ids` whose writer no longer runs (stopped, killed,
   * cut off from the store) or that has none, and resolves with those taken: their clients may
   * have missed events meanwhile. Optional: a store for one process at a time (development)
   * leaves it out, and every replica's copy writes.
   */
  claim?(ids: readonly string[]): Promise<ReadonlySet<string>>;
  /** The events after `seq`, oldest first; undefined when some of them were already dropped from the window. */
  after(id: string, seq: number): Promise<StoredEvent[] | undefined>;
  /** The seq of the newest event appended, 0 before any. */
  latest(id: string): Promise<number>;
  /** True the first time it is asked for a session: its first GET stream delivers what was appended before it. */
  firstStream(id: string): Promise<boolean>;
  /** Hears each event appended from now on; resolves once the subscription is in place. */
  follow(id: string, listener: (event: StoredEvent) => void): Promise<StopListening>;

  /** An id for a request to the session's client, unique among every replica's. */
  nextRequestId(id: string): Promise<number>;
  /** Waits for the client's answer to `requestId`, wherever it is POSTed; resolves once the wait is registered. */
  awaitAnswer(id: string, requestId: number, ttlMs: number, listener: (response: JsonRpcResponse) => void): Promise<StopListening>;
  /** Hands a client's answer to the replica waiting for it: false when none waits (the caller refuses it). */
  answer(id: string, response: JsonRpcResponse): Promise<boolean>;

  close?(): Promise<void>;
}

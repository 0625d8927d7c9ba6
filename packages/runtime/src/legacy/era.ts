/**
 * The legacy era of a dual-era server: which messages belong to a legacy session, and the
 * bounded registry of sessions. An `initialize` on a connection that has not spoken the
 * newer revision opens a session bound to that connection (stdio: the era is chosen by the
 * first request of the process); an HTTP session is created by the HTTP layer and found by
 * its `Mcp-Session-Id`. A modern-only server answers `initialize` with the error naming
 * the versions it does speak.
 */
import { errorResponse, INTERNAL_ERROR, type Classified, type JsonRpcErrorResponse, type JsonRpcRequest } from "../jsonrpc.js";
import type { MessageContext } from "../transport.js";
import { clientKey, StreamSlots, type ClientKey, type SlotRefusal } from "../subscriptions/slots.js";
import { carriesModernMeta, unsupportedVersion, type EraConnection, type EraHost } from "../era.js";
import { initializeRefusal, LegacySession } from "./session.js";
import type { SessionEnding, SessionHost, SessionOutput } from "./session-host.js";
import { LEGACY_CODECS, SESSION_METHODS } from "./translate.js";
import type { RevisionCodec } from "./codec.js";
import { DEFAULT_MAX_REPLAY_BYTES, DEFAULT_MAX_REPLAY_EVENTS } from "./replay.js";
import { closeStreams, type ResumeOptions } from "./resumable.js";
import { unrefTimer } from "../transports/http-io.js";
import { carriesSharedStream } from "./shared-stream.js";
import type { LegacySessionStore, SessionRecord } from "./session-store.js";
import { SharedSessions } from "./shared.js";

export interface LegacyOptions {
  /**
   * The initialize-era versions served. Default: every one the runtime was generated with
   * (the project's initialize-era revisions). An `initialize` asking for another gets the
   * newest of these (the lifecycle's rule), never an error.
   */
  readonly versions?: readonly string[];
  /** Open sessions at once; an `initialize` beyond it is refused (HTTP 503). Default 1000. */
  readonly maxSessions?: number;
  /**
   * Open sessions of one client (the authenticated principal, else the peer address, else
   * the connection: the key listen slots use); an `initialize` beyond it is refused (HTTP
   * 429), so one client cannot take every session. Default a tenth of `maxSessions` (100).
   */
  readonly maxSessionsPerClient?: number;
  /**
   * The last sessions of `maxSessions`, kept for clients holding fewer than four, so a new
   * client can initialize while others hold their shares (subscriptions/slots.ts). Default
   * a twentieth of `maxSessions` (50).
   */
  readonly sessionHeadroom?: number;
  /** An HTTP session without a message or an open GET stream for this long ends. Default 30 minutes. */
  readonly idleMs?: number;
  /**
   * An HTTP session whose client sent nothing for this long (no POST, no GET reconnect, no
   * DELETE) ends even while its GET stream is open: a stream nobody reads from cannot keep a
   * session forever. Default 2 hours.
   */
  readonly maxSilentMs?: number;
  /**
   * Bytes (UTF-8 JSON) of what a session keeps of its `initialize`: the client's
   * `capabilities` and `clientInfo`. A larger one is refused with -32602 naming the bound
   * and opens no session. Default 64 KiB.
   */
  readonly maxInitializeBytes?: number;
  /** `resources/subscribe` URIs one session may hold; one more is refused (-32600) until it unsubscribes one. Default 64. */
  readonly maxSubscriptions?: number;
  /** Characters of one `resources/subscribe` URI; a longer one is refused (-32602). Default 4096. */
  readonly maxSubscriptionUriLength?: number;
  /** Bytes one session's GET stream may hold for a slow client before it is ended. Default 1 MiB. */
  readonly maxBufferedBytes?: number;
  /**
   * Requests the server may have sent one session's client (elicitation, sampling, roots)
   * and still wait for; a handler asking beyond it gets an error. Default 16.
   */
  readonly maxClientRequests?: number;
  /** How long the server waits for the client's answer to one of them; then the handler's request fails and a late answer is dropped. Default 5 minutes (a person may be answering). */
  readonly clientRequestTimeoutMs?: number;
  /** The SSE `retry` field (ms) a session's streams send: how long a client waits before it reconnects. Default 1000. */
  readonly retryMs?: number;
  /**
   * SSE polling: a session's stream is closed this long (ms) after a connection started
   * carrying it, without ending it; the client reconnects with `Last-Event-ID` and gets what
   * it missed. Default 0: connections stay open.
   */
  readonly pollAfterMs?: number;
  /** Events one session keeps for replay to a client resuming a stream (`Last-Event-ID`). Default 256. */
  readonly maxReplayEvents?: number;
  /** Bytes of events one session keeps for replay. Default 256 KiB. */
  readonly maxReplayBytes?: number;
  /**
   * How long an HTTP+SSE stream (the 2024-11-05 transport, sse-endpoint.ts) waits for its
   * client's `initialize` POST before it is closed. Default 30 s.
   */
  readonly sseInitializeMs?: number;
  /**
   * Requests one HTTP+SSE session may have running at once. Each POST is answered 202 before
   * its request runs, so nothing but this bound stops a client from starting requests faster
   * than they finish; one more is refused (HTTP 429 with `Retry-After`, the JSON-RPC error
   * carrying its id) until an answer goes out. Default 16.
   */
  readonly sseMaxInFlight?: number;
  /**
   * Where HTTP sessions live when several replicas serve one endpoint (session-store.ts; a
   * Redis one comes with the Redis event source). Default: none, sessions live in this process.
   */
  readonly store?: LegacySessionStore;
}

export const DEFAULT_MAX_SESSIONS = 1000;
/** A client's default share of `maxSessions`: a tenth, so nine more clients at their share still find room. */
export const DEFAULT_SESSIONS_PER_CLIENT_FRACTION = 10;
export const DEFAULT_IDLE_MS = 30 * 60_000;
export const DEFAULT_MAX_SILENT_MS = 2 * 60 * 60_000;
export const DEFAULT_MAX_INITIALIZE_BYTES = 64 * 1024;
export const DEFAULT_MAX_SUBSCRIPTIONS = 64;
export const DEFAULT_MAX_SUBSCRIPTION_URI_LENGTH = 4096;
export const DEFAULT_MAX_CLIENT_REQUESTS = 16;
export const DEFAULT_CLIENT_REQUEST_TIMEOUT_MS = 5 * 60_000;
export const DEFAULT_RETRY_MS = 1000;
export const DEFAULT_SSE_INITIALIZE_MS = 30_000;
/** Sized like `maxClientRequests`: at `maxSessions` sessions that is 16,000 requests running, a bounded heap's worth of bookkeeping. */
export const DEFAULT_SSE_MAX_IN_FLIGHT = 16;

/** Why an `initialize` opened no session (refused, the server full, the client at its share), and the answer it gets. */
export interface SessionRefusal {
  readonly refused: "invalid" | "full" | "share";
  readonly error: JsonRpcErrorResponse;
}

export class LegacyEra {
  readonly enabled: boolean;
  readonly maxSessions: number;
  readonly maxSessionsPerClient: number;
  readonly idleMs: number;
  readonly maxSilentMs: number;
  readonly sseInitializeMs: number;
  readonly sseMaxInFlight: number;
  readonly maxBufferedBytes: number | undefined;
  /** How a session's SSE streams are primed, polled and replayed (resumable.ts). */
  readonly resume: ResumeOptions;
  /** The initialize-era versions served, newest first. */
  readonly versions: readonly string[];
  readonly #sessions = new Map<string, LegacySession>();
  /** Sessions held, server-wide and per client: the listen slots' rule, applied to sessions. */
  readonly #slots: StreamSlots;
  readonly #sessionHost: SessionHost<LegacySession>;
  /** Sessions opened here, which hold slots (copies of other replicas' sessions hold none). */
  readonly #counted = new WeakSet<LegacySession>();
  readonly #closers: Array<() => void> = [];
  /** Set when a store shares sessions between replicas (shared.ts). */
  readonly shared: SharedSessions | undefined;
  #sweep: NodeJS.Timeout | undefined;

  constructor(
    readonly host: EraHost,
    options: LegacyOptions | false | undefined,
  ) {
    this.enabled = options !== false;
    const chosen = options === false ? {} : (options ?? {});
    this.maxSessions = Math.max(1, chosen.maxSessions ?? DEFAULT_MAX_SESSIONS);
    this.maxSessionsPerClient = Math.max(1, chosen.maxSessionsPerClient ?? Math.ceil(this.maxSessions / DEFAULT_SESSIONS_PER_CLIENT_FRACTION));
    this.#slots = new StreamSlots({ max: this.maxSessions, maxPerClient: this.maxSessionsPerClient, headroom: chosen.sessionHeadroom });
    this.idleMs = Math.max(1, chosen.idleMs ?? DEFAULT_IDLE_MS);
    this.maxSilentMs = Math.max(1, chosen.maxSilentMs ?? DEFAULT_MAX_SILENT_MS);
    this.sseInitializeMs = Math.max(1, chosen.sseInitializeMs ?? DEFAULT_SSE_INITIALIZE_MS);
    this.sseMaxInFlight = Math.max(1, chosen.sseMaxInFlight ?? DEFAULT_SSE_MAX_IN_FLIGHT);
    this.maxBufferedBytes = chosen.maxBufferedBytes;
    this.resume = {
      retryMs: Math.max(0, chosen.retryMs ?? DEFAULT_RETRY_MS),
      pollAfterMs: Math.max(0, chosen.pollAfterMs ?? 0),
      maxReplayEvents: Math.max(0, chosen.maxReplayEvents ?? DEFAULT_MAX_REPLAY_EVENTS),
      maxReplayBytes: Math.max(0, chosen.maxReplayBytes ?? DEFAULT_MAX_REPLAY_BYTES),
    };
    const codecs = servedCodecs(chosen.versions);
    this.versions = codecs.map((codec) => codec.version);
    const keeping = { idleMs: this.idleMs, maxSilentMs: this.maxSilentMs, maxEvents: this.resume.maxReplayEvents, maxBytes: this.resume.maxReplayBytes };
    this.shared =
      chosen.store === undefined
        ? undefined
        : new SharedSessions(chosen.store, keeping, {
            emit: host.emit,
            get: (id) => this.#sessions.get(id),
            materialize: (record) => this.#materialize(record),
            sessions: () => this.#sessions.values(),
          });
    this.#sessionHost = {
      ...host,
      sharing: this.shared,
      codecs,
      maxClientRequests: Math.max(1, chosen.maxClientRequests ?? DEFAULT_MAX_CLIENT_REQUESTS),
      clientRequestTimeoutMs: Math.max(1, chosen.clientRequestTimeoutMs ?? DEFAULT_CLIENT_REQUEST_TIMEOUT_MS),
      maxInitializeBytes: Math.max(0, chosen.maxInitializeBytes ?? DEFAULT_MAX_INITIALIZE_BYTES),
      maxSubscriptions: Math.max(0, chosen.maxSubscriptions ?? DEFAULT_MAX_SUBSCRIPTIONS),
      maxSubscriptionUriLength: Math.max(1, chosen.maxSubscriptionUriLength ?? DEFAULT_MAX_SUBSCRIPTION_URI_LENGTH),
      capabilities: (meta) => host.capabilities(meta),
      hasMethod: (method) => host.hasMethod(method),
      reserveStream: (session) => host.reserveStream(session),
      releaseStream: (session) => host.releaseStream(session),
      ended: (session) => this.#forget(session),
    };
  }

  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Takes the message when it belongs to the legacy era: true when it was handled here.
   * Cheap for the newer revision's messages: one field read, one method comparison.
   */
  route(connection: EraConnection, classified: Classified, context: MessageContext | undefined): boolean {
    const session = connection.eraSession;
    if (session !== undefined) {
      session.receive(connection, classified, context);
      return true;
    }
    if (classified.kind !== "request" || classified.message.method !== SESSION_METHODS.initialize) return false;
    if (carriesModernMeta(classified.message)) return false;
    const request = classified.message;
    if (!this.enabled || connection.modernSeen) {
      connection.send(unsupportedVersion(request.id, String(request.params?.["protocolVersion"]), this.host.modernVersions));
      return true;
    }
    const opened = this.open(request, connection, true, connection.clientKey(context));
    // Refused: the connection stays unbound, so its era is not fixed yet.
    if (!(opened instanceof LegacySession)) {
      connection.send(opened.error);
      return true;
    }
    connection.eraSession = opened;
    opened.receive(connection, classified, context);
    return true;
  }

  /**
   * A new session for `initialize`, writing its notifications to `output`; or why none was
   * opened: the request is refused (`invalid`), or the session limit is reached (`full`).
   * `ownedByConnection`: it lives exactly as long as the connection that opened it (stdio),
   * rather than until DELETE or idle expiry (HTTP). `client`: whose share it counts against.
   * `slotHeld`: its output already holds the client's slot (`reserveSlot`) and gives it back
   * when it ends, so the session takes none of its own.
   */
  open(
    initialize: JsonRpcRequest,
    output: SessionOutput | undefined,
    ownedByConnection: boolean,
    client: ClientKey,
    slotHeld = false,
  ): LegacySession | SessionRefusal {
    const invalid = initializeRefusal(initialize, this.#sessionHost.maxInitializeBytes);
    if (invalid !== undefined) return { refused: "invalid", error: invalid };
    if (!this.enabled) return { refused: "full", error: this.limitError(initialize) };
    const refusal = slotHeld ? undefined : this.#slots.reserve(client);
    if (refusal?.scope === "server") return { refused: "full", error: this.limitError(initialize) };
    if (refusal?.scope === "headroom") return { refused: "full", error: this.#headroomError(initialize, refusal.limit) };
    if (refusal !== undefined) return { refused: "share", error: this.#shareError(initialize) };
    const session = new LegacySession(this.#sessionHost, crypto.randomUUID(), output, ownedByConnection, client);
    if (this.shared !== undefined && !ownedByConnection) session.output = this.shared.output(session, true);
    if (!slotHeld) this.#counted.add(session);
    this.#hold(session);
    return session;
  }

  /**
   * Takes one of the sessions' slots for `client` before any `initialize`: an HTTP+SSE stream
   * holds one from its GET on (sse-endpoint.ts), so streams and sessions share one pool and
   * one share per client. The holder gives it back with `releaseSlot`, once.
   */
  reserveSlot(client: ClientKey): SlotRefusal | undefined {
    return this.#slots.reserve(client);
  }

  releaseSlot(client: ClientKey): void {
    this.#slots.release(client);
  }

  get(id: string): LegacySession | undefined {
    return this.#sessions.get(id);
  }

  /** The session a request names: this process's, or with a store any replica's (loaded on first use). */
  find(id: string): LegacySession | undefined | Promise<LegacySession | undefined> {
    return this.shared === undefined ? this.#sessions.get(id) : this.shared.find(id);
  }

  /** The client named the session (a request, a GET, a DELETE). */
  touched(session: LegacySession): void {
    session.lastActive = Date.now();
    this.shared?.touched(session);
  }

  #hold(session: LegacySession): void {
    this.#sessions.set(session.id, session);
    // Shared: the store's expiry decides, and the sweep keeps carried streams' sessions alive well within idleMs.
    const every =
      this.shared === undefined ? Math.min(this.idleMs, this.maxSilentMs, 60_000) : Math.max(50, Math.min(this.idleMs / 2, this.maxSilentMs, 30_000));
    this.#sweep ??= unrefTimer(setInterval(() => this.#expireIdle(), every));
  }

  /** This replica's copy of a session another one opened: no slot of its own; its streams count against its principal, else against it alone. */
  #materialize(record: SessionRecord): LegacySession {
    const client = record.principal === undefined ? `session:${record.id}` : clientKey(record.principal, undefined, {});
    const session = new LegacySession(this.#sessionHost, record.id, undefined, false, client);
    session.output = this.shared!.output(session, false);
    this.#hold(session);
    session.restore(record);
    return session;
  }

  limitError(request: JsonRpcRequest | null): JsonRpcErrorResponse {
    return errorResponse(request?.id ?? null, INTERNAL_ERROR, `The server has reached its limit of ${this.maxSessions} legacy sessions; retry later`);
  }

  /** The last sessions are kept for clients holding few (slots.ts): this client holds more. */
  #headroomError(request: JsonRpcRequest, newcomerBelow: number): JsonRpcErrorResponse {
    const message = `The server is nearly full of legacy sessions and keeps its last ones for clients holding fewer than ${newcomerBelow}; end one of yours or retry later`;
    return errorResponse(request.id, INTERNAL_ERROR, message);
  }

  #shareError(request: JsonRpcRequest): JsonRpcErrorResponse {
    return errorResponse(
      request.id,
      INTERNAL_ERROR,
      `This client already has ${this.maxSessionsPerClient} legacy sessions open, its share of the server; end one (DELETE) before initializing another`,
    );
  }

  /** Sessions open for one client (for tests and metrics). */
  heldBy(client: ClientKey): number {
    return this.#slots.heldBy(client);
  }

  /** Server shutdown: every session ends (handleClose for each implicit stream). */
  /** Runs `closer` when the era closes: for what it holds that is not a session yet (an HTTP+SSE stream waiting for initialize). */
  onClose(closer: () => void): void {
    this.#closers.push(closer);
  }

  async close(cause: SessionEnding = "shutdown"): Promise<void> {
    for (const closer of this.#closers) closer();
    this.shared?.close();
    await Promise.all([...this.#sessions.values()].map((session) => session.close(cause)));
  }

  #forget(session: LegacySession): void {
    closeStreams(session);
    if (this.#sessions.get(session.id) === session) {
      this.#sessions.delete(session.id);
      if (this.#counted.has(session)) this.#slots.release(session.client);
    }
    if (this.#sessions.size === 0 && this.#sweep !== undefined) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    }
  }

  /**
   * Ends HTTP sessions quiet (no message, no GET stream) for longer than idleMs, and those
   * whose client sent nothing for longer than maxSilentMs whatever stream they hold; stdio
   * sessions live as long as their process.
   */
  #expireIdle(): void {
    if (this.shared !== undefined) {
      void this.shared
        .sweep((session) => carriesSharedStream(session))
        .catch((error: unknown) => this.host.emit({ type: "handler-error", id: null, callback: "session store", error }));
      return;
    }
    const now = Date.now();
    const idleCutoff = now - this.idleMs;
    const silentCutoff = now - this.maxSilentMs;
    for (const session of [...this.#sessions.values()]) {
      if (session.ownedByConnection) continue;
      const idle = !carriesStream(session.output) && session.lastActive < idleCutoff;
      if (idle || session.lastActive < silentCutoff) void session.close("client-gone");
    }
  }
}

/** The codecs of the versions a server serves, newest first; a version the runtime has no facts for is refused by name. */
function servedCodecs(versions: readonly string[] | undefined): readonly RevisionCodec[] {
  if (versions === undefined) return LEGACY_CODECS;
  const unknown = versions.filter((version) => !LEGACY_CODECS.some((codec) => codec.version === version));
  if (unknown.length > 0 || versions.length === 0) {
    throw new Error(
      `legacy.versions: ${unknown.length > 0 ? `no facts for ${unknown.join(", ")}` : "the list is empty"}; this runtime serves ${LEGACY_CODECS.map((codec) => codec.version).join(", ")} (generate another revision with mcp-gen types)`,
    );
  }
  return LEGACY_CODECS.filter((codec) => versions.includes(codec.version));
}

/** Whether a connection carries the session's GET stream now (a resumable stream outlives its connections). */
function carriesStream(output: SessionOutput | undefined): boolean {
  return output !== undefined && (output as { readonly attached?: boolean }).attached !== false;
}

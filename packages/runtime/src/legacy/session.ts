/**
 * One legacy session (2025-11-25): the stdio process after `initialize`, or one HTTP
 * `Mcp-Session-Id`. It negotiates the version, answers the legacy-only requests itself
 * (`initialize`, `ping`, `logging/setLevel`, `resources/subscribe`/`unsubscribe`), hands
 * the shared ones to the server's own handlers with the `_meta` a newer client would have
 * sent, and translates their answers. Server-initiated notifications come from implicit
 * streams on the application's subscription handlers (contract.md section 3). A handler
 * that asks for input (input-required.ts) is served by asking this client with
 * server-to-client requests (input-rounds.ts), whose answers only this session takes.
 */
import { META_KEYS, type SubscriptionFilter } from "../protocol.js";
import type * as Legacy from "./protocol.js";
import type { EventHook } from "../hooks.js";
import {
  droppedAnswer,
  errorResponse,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isObject,
  METHOD_NOT_FOUND,
  type Classified,
  type JsonObject,
  type JsonRpcErrorResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from "../jsonrpc.js";
import { isLoggingLevel, LOG_LEVEL_SEVERITY, type NotificationSink } from "../request-notifications.js";
import { KINDS } from "../subscriptions/filter.js";
import { StreamTable } from "../subscriptions/stream-table.js";
import type { Teardown } from "../subscriptions/stream.js";
import { slotRefusalMessage, type ClientKey } from "../subscriptions/slots.js";
import type { MessageContext } from "../transport.js";
import type { EraSession } from "../era.js";
import type { TraceFacts } from "../tracing.js";
import { mergeMeta, type HandlerMeta } from "../meta.js";
import { INPUT_REQUIRED, serveInputRounds, type InputAsker, type Rounds } from "./input-rounds.js";
import { ServerRequests } from "./server-requests.js";
import { PendingNotifications } from "./pending.js";
import { ImplicitStream, listChangedFilter, URI_KIND, type ImplicitStreamOwner } from "./implicit-stream.js";
import { INITIALIZED_METHOD, initializeResult, isSharedMethod, SESSION_METHODS, toLegacyResponse, toModernParams } from "./translate.js";
import type { RevisionCodec } from "./codec.js";
import type { SessionRecord } from "./session-store.js";
import type { SessionConnection, SessionEnding, SessionHost, SessionOutput } from "./session-host.js";

const CANCELLED_METHOD = "notifications/cancelled" satisfies Legacy.ClientNotificationMethod;
const NO_META: Readonly<JsonObject> = Object.freeze({});
/**
 * How long after its handler ended one of a live session's implicit streams (a `{ stop }`, a
 * failure, a full mailbox) it is opened again: the client asked for it and cannot listen again
 * itself. The wait keeps a handler that ends every stream it gets from spinning.
 */
const REOPEN_AFTER_MS = 1000;
/** The endings after which a live session opens its stream again: the handler's, not the session's or the client's. */
const HANDLER_ENDINGS: ReadonlySet<Teardown["why"]> = new Set(["stopped", "failed", "overflow"]);
const LOWEST_LOG_LEVEL = Object.entries(LOG_LEVEL_SEVERITY).reduce((lowest, entry) => (entry[1] < lowest[1] ? entry : lowest))[0];

/** A shared request being handled, with the connection running it (a session usually has one at a time: no Map is made for it). */
interface Running {
  readonly id: RequestId;
  readonly connection: SessionConnection;
}

type Phase = "new" | "initialized" | "ready" | "closed";

export class LegacySession implements ImplicitStreamOwner, EraSession {
  #phase: Phase = "new";
  /** The negotiated revision's codec (set by `initialize`). */
  #codec: RevisionCodec | undefined;
  /** The negotiated version, client info and capabilities, as a newer client's `_meta` would carry them (frozen: shared by requests). */
  #meta: Readonly<JsonObject> = NO_META;
  #context: MessageContext | undefined;
  /** `#meta` with the transport's context on top, made once per change of `#meta` (most requests carry no `_meta` of their own). */
  #sessionMeta: HandlerMeta | undefined;
  #listStream: ImplicitStream | undefined;
  /** The list-change stream's opening, once `#ready` began it: `missed` waits for it, to know what the handlers honored. */
  #listOpening: Promise<void> | undefined;
  readonly #resourceStreams = new Map<string, ImplicitStream>();
  /** Shared requests being handled, with the connection running each (an HTTP POST may cancel another POST's request). */
  readonly #running = new StreamTable<Running>();
  readonly #serverRequests: ServerRequests;
  /** An HTTP session's notifications from `notifications/initialized` until its first GET stream, which delivers them (pending.ts). */
  #pending: PendingNotifications | undefined;
  /** When the session last saw a message (for idle expiry). */
  lastActive = Date.now();
  /** Streams waiting to be opened again (REOPEN_AFTER_MS), cleared when the session closes. */
  readonly #reopening = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    readonly host: SessionHost<LegacySession>,
    readonly id: string,
    public output: SessionOutput | undefined,
    readonly ownedByConnection: boolean,
    /** Whose shares of sessions and listen slots this session and its implicit streams count against. */
    readonly client: ClientKey,
  ) {
    this.#serverRequests = new ServerRequests(host.maxClientRequests, host.clientRequestTimeoutMs, host.sharing?.requests(id));
  }

  get emit(): EventHook {
    return this.host.emit;
  }
  get mailboxSize(): number {
    return this.host.mailboxSize;
  }
  /** The transport's context of the `initialize` that opened the session (e.g. the principal). */
  get context(): MessageContext | undefined {
    return this.#context;
  }
  /** What the session negotiated (its version, the client's capabilities and info): every request's `_meta`. */
  get meta(): Readonly<JsonObject> {
    return this.#meta;
  }

  get closed(): boolean {
    return this.#phase === "closed";
  }
  /** Whether a request of this session runs here, or waits here for its client's answer. */
  get busy(): boolean {
    return this.#running.size > 0 || this.#serverRequests.size > 0;
  }
  /** The negotiated protocol version; undefined before `initialize`. */
  get version(): string | undefined {
    return this.#codec?.version;
  }

  /** One message of this session; `context` is the transport's (e.g. the principal), kept from `initialize`. */
  receive(connection: SessionConnection, classified: Classified, context: MessageContext | undefined): void {
    this.lastActive = Date.now();
    if (this.#phase === "new") {
      this.#context = context;
      this.#sessionMeta = undefined;
    }
    switch (classified.kind) {
      case "invalid":
        connection.send(errorResponse(classified.id, classified.error.code, classified.error.message));
        return;
      case "notification":
        if (classified.message.method === INITIALIZED_METHOD) void this.#ready();
        else if (classified.message.method === CANCELLED_METHOD) {
          const id = classified.message.params?.["requestId"];
          if (typeof id !== "string" && typeof id !== "number") return;
          const running = this.#running.get(id);
          if (running !== undefined) running.connection.cancelRequest(id);
          // Shared: the request may run on another replica; every replica's copy hears it.
          else if (this.host.sharing !== undefined) this.host.sharing.cancelled(this.id, id);
          else connection.cancelRequest(id);
        }
        return;
      case "request":
        void this.#request(connection, classified.message).catch((error: unknown) => {
          this.host.emit({ type: "handler-error", id: classified.message.id, callback: classified.message.method, error });
          connection.send(errorResponse(classified.message.id, INTERNAL_ERROR, `Internal error while handling ${classified.message.method}`));
        });
        return;
      case "response":
        // Over stdio an answer nobody waits for has no one to be refused to: dropped, and reported.
        if (!this.answer(classified.message)) this.host.emit({ type: "transport-error", error: droppedAnswer(classified.message) });
        return;
    }
  }

  /** A client's answer to one of this session's requests: true when one was waiting for it (HTTP refuses the rest). */
  answer(response: JsonRpcResponse): boolean {
    this.lastActive = Date.now();
    return this.#serverRequests.settle(response);
  }

  /** An answer this replica does not wait for, handed to the one that does (shared sessions); false when none waits. */
  async answerElsewhere(response: JsonRpcResponse): Promise<boolean> {
    return this.host.sharing === undefined ? false : this.host.sharing.answer(this.id, response);
  }

  /** The client cancelled a request through another replica: cancelled here if it runs here. */
  cancelElsewhere(requestId: RequestId): void {
    this.#running.get(requestId)?.connection.cancelRequest(requestId);
  }

  /** What another replica needs to serve this session; undefined before `initialize`. */
  record(): SessionRecord | undefined {
    if (this.#codec === undefined) return undefined;
    const principal = this.#context?.["principal"];
    return {
      id: this.id,
      version: this.#codec.version,
      meta: this.#meta,
      ...(principal === undefined ? {} : { principal }),
      ready: this.#phase === "ready",
      subscriptions: [...this.#resourceStreams.keys()],
    };
  }

  /** Takes over a session another replica opened: its revision, `_meta` and principal, then its streams. */
  restore(record: SessionRecord): void {
    if (this.#phase !== "new") return;
    this.#codec = this.host.codecs.find((served) => served.version === record.version) ?? this.host.codecs[0]!;
    this.#context = record.principal === undefined ? undefined : Object.freeze({ principal: record.principal });
    this.#setMeta({ ...record.meta });
    this.#phase = "initialized";
    this.adopt(record);
  }

  /** Another replica changed the session: its log level, readiness and subscriptions follow here (nothing is saved back). */
  adopt(record: SessionRecord): void {
    if (this.#phase === "new" || this.#phase === "closed") return;
    if (JSON.stringify(record.meta) !== JSON.stringify(this.#meta)) this.#setMeta({ ...record.meta });
    if (record.ready && this.#phase === "initialized") void this.#ready(false);
    if (this.#phase !== "ready") return;
    for (const uri of record.subscriptions) if (!this.#resourceStreams.has(uri)) void this.#openSubscription(uri);
    for (const [uri, open] of this.#resourceStreams) if (!record.subscriptions.includes(uri)) void open.stream.teardown({ why: "cancelled" });
  }

  /**
   * The session's client may have missed notifications (a shared session's window was lost
   * with the store's data): it is told that each list its stream honors, and each resource it
   * subscribed to, may have changed, so that it reads them again.
   */
  missed(): void {
    if (this.#listOpening === undefined) this.#sendMissed();
    else void this.#listOpening.then(() => this.#sendMissed());
  }

  #sendMissed(): void {
    const honored = (this.#listStream?.honored ?? {}) as Readonly<Record<string, unknown>>;
    for (const kind of KINDS) {
      if (kind.value === "boolean" && honored[kind.filterKey] === true) this.notify({ jsonrpc: "2.0", method: kind.notificationMethod });
    }
    if (URI_KIND === undefined) return;
    for (const uri of this.#resourceStreams.keys()) this.notify({ jsonrpc: "2.0", method: URI_KIND.notificationMethod, params: { uri } });
  }

  /** The client's input ended (stdin EOF): no answer can arrive, so waiting requests fail now instead of at their timeout. */
  inputEnded(): void {
    if (this.ownedByConnection) this.#serverRequests.close("the client's input ended before it answered");
  }

  /** A notification as the client's revision has it (only what it defines), or undefined when it has none such. */
  #forClient(sent: JsonRpcNotification): JsonRpcNotification | undefined {
    return this.#codec === undefined ? sent : this.#codec.notification(sent);
  }

  /** What a span learns of the session: an HTTP session's id (stdio's session has none on the wire). */
  traceFacts(): TraceFacts {
    return this.ownedByConnection ? {} : { sessionId: this.id };
  }

  /** The connection that opened a stdio session went away: the session ends with it (an HTTP session outlives its POSTs). */
  connectionGone(): void {
    if (this.ownedByConnection) void this.close("client-gone");
  }

  /**
   * Where a request of this session writes its own notifications (progress, log messages):
   * the request's connection, with each notification trimmed to the client's revision as
   * `notify` trims the session's (a 2024-11-05 progress has no `message`).
   */
  requestSink(connection: NotificationSink): NotificationSink {
    return {
      send: (message) => {
        const trimmed = "method" in message && !("id" in message) ? this.#forClient(message) : message;
        if (trimmed !== undefined) connection.send(trimmed);
      },
      closeStream: () => connection.closeStream?.() ?? false,
    };
  }

  notify(sent: JsonRpcNotification): void {
    if (this.#phase === "closed") return;
    // A notification the client's revision does not have is not sent; the rest carry only what it defines.
    const notification = this.#forClient(sent);
    if (notification === undefined) return;
    if (this.output !== undefined) this.output.send(notification);
    else if (!this.ownedByConnection) (this.#pending ??= new PendingNotifications()).keep(notification, KINDS.length + this.#resourceStreams.size);
  }

  /** The session's output from now on (an HTTP session's first GET stream); what waited for it goes out first, in order. */
  attachOutput(output: SessionOutput): void {
    this.output = output;
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending !== undefined && this.#phase !== "closed") for (const notification of pending.values()) output.send(notification);
  }

  streamEnded(stream: ImplicitStream, why?: Teardown): void {
    const reopen = why !== undefined && HANDLER_ENDINGS.has(why.why) && this.#phase === "ready";
    if (this.#listStream === stream) {
      this.#listStream = undefined;
      if (reopen) this.#reopenLater(() => this.#openListStream());
    }
    for (const [uri, open] of this.#resourceStreams) {
      if (open !== stream) continue;
      this.#resourceStreams.delete(uri);
      if (URI_KIND !== undefined) this.#pending?.forget(URI_KIND.notificationMethod, uri); // unsubscribed: no longer the client's
      if (reopen) this.#reopenLater(() => this.#openSubscription(uri));
    }
    this.host.releaseStream(this);
  }

  /**
   * Opens a stream its handler ended again, after REOPEN_AFTER_MS, and tells the client that
   * what it watches may have changed meanwhile (`missed`): the session still owes it the
   * notifications it asked for, and nothing else would restore them.
   */
  #reopenLater(open: () => Promise<unknown>): void {
    const timer = setTimeout(() => {
      this.#reopening.delete(timer);
      if (this.#phase !== "ready") return;
      void open().then(() => this.#phase === "ready" && this.missed());
    }, REOPEN_AFTER_MS);
    timer.unref?.();
    this.#reopening.add(timer);
  }

  /**
   * Ends the session: every implicit stream gets handleClose once, the output closes.
   * `elsewhere`: it already ended in the store (another replica's DELETE, expiry), so it is
   * not ended there again; otherwise a shared session ends on every replica.
   */
  async close(why: SessionEnding, elsewhere = false): Promise<void> {
    if (this.#phase === "closed") return;
    const shared = this.#phase !== "new" && !elsewhere && why !== "shutdown";
    this.#phase = "closed";
    for (const timer of this.#reopening) clearTimeout(timer);
    this.#reopening.clear();
    this.host.ended(this);
    if (shared) this.host.sharing?.ended(this.id);
    this.#serverRequests.close("the session ended before the client answered");
    // DELETE or the client gone: its running requests are aborted. At shutdown the connections end them, as for a modern request.
    if (why !== "shutdown") for (const { id, connection } of this.#running.list()) connection.cancelRequest(id);
    const streams = [...this.#resourceStreams.values(), ...(this.#listStream === undefined ? [] : [this.#listStream])];
    await Promise.all(streams.map((open) => open.stream.teardown({ why })));
    this.output?.close?.();
  }

  async #request(connection: SessionConnection, request: JsonRpcRequest): Promise<void> {
    const { id, method } = request;
    if (this.#phase === "closed") return connection.send(errorResponse(id, INVALID_REQUEST, "Invalid request: the session has ended; initialize a new one"));
    if (method === SESSION_METHODS.initialize) return await this.#initialize(connection, request);
    if (method === SESSION_METHODS.ping) return answerEmpty(connection, id);
    if (this.#phase === "new") return connection.send(errorResponse(id, INVALID_REQUEST, `Invalid request: send initialize before ${method}`));
    const params = request.params ?? {};
    switch (method) {
      case SESSION_METHODS.setLevel:
        return this.#setLevel(connection, id, params["level"]);
      case SESSION_METHODS.subscribe:
        return this.#subscribe(connection, id, params["uri"]);
      case SESSION_METHODS.unsubscribe:
        if (typeof params["uri"] === "string") await this.#resourceStreams.get(params["uri"])?.stream.teardown({ why: "cancelled" });
        if (!(await this.#share(connection, id))) return;
        return answerEmpty(connection, id);
    }
    if (!isSharedMethod(this.#codec!, method) || !this.host.hasMethod(method))
      return connection.send(errorResponse(id, METHOD_NOT_FOUND, `Method not found: ${method}`));
    if (this.#running.get(id) !== undefined)
      return connection.send(errorResponse(id, INVALID_REQUEST, `Invalid request: id ${JSON.stringify(id)} is already in use`));
    // What the session negotiated wins over the client's own `_meta`, and transport facts over both, as on the modern path.
    const clientMeta = isObject(params["_meta"]) ? params["_meta"] : undefined;
    const requestMeta = clientMeta === undefined ? this.#meta : { ...clientMeta, ...this.#meta };
    const handlerMeta = clientMeta === undefined ? this.#streamMeta() : mergeMeta(clientMeta, this.#context, this.#meta);
    const modern: JsonRpcRequest = { jsonrpc: "2.0", id, method, params: toModernParams(params, requestMeta) };
    const running: Running = { id, connection };
    this.#running.add(running);
    try {
      // Rounds are served only for an input_required answer; any other is translated on the spot. (An
      // inline arrow: a named one would be renamed on every request where keepNames is on, as under tsx.)
      const answered = await connection.serve(modern, handlerMeta, (response, rounds) =>
        isInputRequired(response) ? this.#serveRounds(modern, response, rounds, connection) : toLegacyResponse(this.#codec!, method, response),
      );
      // An HTTP POST whose request was cancelled ends without an answer; stdio's connection is the session's own.
      if (!answered && !this.ownedByConnection) await connection.abandon();
    } finally {
      this.#running.delete(running);
    }
  }

  /** Asks go out on the connection of the request that needs them (an HTTP POST's own response stream). */
  async #serveRounds(request: JsonRpcRequest, first: JsonRpcResponse, rounds: Rounds, connection: SessionConnection): Promise<JsonRpcResponse> {
    const requests = this.#serverRequests;
    const codec = this.#codec!;
    const asker: InputAsker = {
      refusal: (method, params) => codec.requestRefusal(method, params),
      clientCapabilities: (isObject(this.#meta[META_KEYS.clientCapabilities]) ? this.#meta[META_KEYS.clientCapabilities] : {}) as Record<string, unknown>,
      fits: (count) => requests.fits(count),
      ask: (method, params, signal) => requests.ask(connection, method, codec.requestParams(method, params), signal),
    };
    return toLegacyResponse(codec, request.method, await serveInputRounds(request, first, rounds, asker));
  }

  /**
   * Saves the record for the other replicas (when shared) before the change is answered;
   * false, having answered the error, when the store could not be written.
   */
  async #share(connection: SessionConnection, id: RequestId, first = false): Promise<boolean> {
    const sharing = this.host.sharing;
    const record = this.record();
    if (sharing === undefined || record === undefined) return true;
    try {
      await (first ? sharing.created(record) : sharing.saved(record));
      return true;
    } catch (error) {
      this.host.emit({ type: "handler-error", id, callback: "session store", error });
      connection.send(errorResponse(id, INTERNAL_ERROR, "The session store could not be written; retry the request"));
      return false;
    }
  }

  #setMeta(meta: JsonObject): void {
    this.#meta = Object.freeze(meta);
    this.#sessionMeta = undefined;
  }

  async #initialize(connection: SessionConnection, request: JsonRpcRequest): Promise<void> {
    const { id } = request;
    const params = request.params ?? {};
    if (this.#phase !== "new") return connection.send(errorResponse(id, INVALID_REQUEST, "Invalid request: this session is already initialized"));
    const refusal = initializeRefusal(request, this.host.maxInitializeBytes);
    if (refusal !== undefined) return connection.send(refusal);
    const { protocolVersion, capabilities, clientInfo } = params;
    // The lifecycle's rule: the requested version when served, else the newest one served.
    const codec = this.host.codecs.find((served) => served.version === protocolVersion) ?? this.host.codecs[0]!;
    this.#codec = codec;
    this.#setMeta({
      [META_KEYS.protocolVersion]: codec.version,
      [META_KEYS.clientCapabilities]: capabilities,
      [META_KEYS.clientInfo]: clientInfo,
      // A legacy session gets every log message until logging/setLevel raises the bar.
      [META_KEYS.logLevel]: LOWEST_LOG_LEVEL,
    });
    this.#phase = "initialized";
    // Shared: stored before the answer, so the client's next request finds it on any replica; else no session.
    if (!(await this.#share(connection, id, true))) return void this.close("cancelled", true);
    const result = initializeResult(codec, this.host.capabilities(this.#streamMeta()), this.host.info, this.host.instructions);
    connection.send({ jsonrpc: "2.0", id, result });
  }

  /** After `notifications/initialized` (here, or `share` false: on another replica): the implicit stream of every list change the server advertises. */
  async #ready(share = true): Promise<void> {
    if (this.#phase !== "initialized") return;
    this.#phase = "ready";
    const record = share ? this.record() : undefined;
    if (record !== undefined)
      this.host.sharing?.saved(record).catch((error: unknown) => this.host.emit({ type: "handler-error", id: null, callback: "session store", error }));
    await (this.#listOpening = this.#openListStream());
  }

  /** The implicit stream of every list change the server advertises (none when it advertises none). */
  async #openListStream(): Promise<void> {
    const meta = this.#streamMeta();
    const filter = listChangedFilter(this.host.capabilities(meta) as Readonly<Record<string, unknown>>);
    if (Object.keys(filter).length === 0) return;
    const id = `${this.id}:list_changed`;
    const refusal = this.host.reserveStream(this);
    // No request to refuse: the session goes on without list changes, and the operator is told why.
    if (refusal !== undefined) return this.host.emit({ type: "stream-rejected", id, reason: slotRefusalMessage(refusal) });
    const open = new ImplicitStream(this, id, meta, filter, this.client);
    this.#listStream = open;
    await this.#open(open);
  }

  /** The level becomes the requests' `_meta` log level; not kept when the other replicas cannot hear of it. */
  async #setLevel(connection: SessionConnection, id: RequestId, level: unknown): Promise<void> {
    if (!isLoggingLevel(level)) return connection.send(errorResponse(id, INVALID_PARAMS, `Invalid params: "level" must be a logging level`));
    const before = this.#meta;
    this.#setMeta({ ...this.#meta, [META_KEYS.logLevel]: level });
    if (!(await this.#share(connection, id))) return this.#setMeta(before);
    answerEmpty(connection, id);
  }

  async #subscribe(connection: SessionConnection, id: RequestId, uri: unknown): Promise<void> {
    if (URI_KIND === undefined) return connection.send(errorResponse(id, METHOD_NOT_FOUND, "Method not found: resources/subscribe"));
    if (typeof uri !== "string") return connection.send(errorResponse(id, INVALID_PARAMS, 'Invalid params: "uri" must be a string'));
    if (this.#resourceStreams.has(uri)) return connection.send({ jsonrpc: "2.0", id, result: {} });
    // What the session keeps per subscription (the URI, a stream) is bounded before a slot is taken.
    const { maxSubscriptions, maxSubscriptionUriLength } = this.host;
    if (uri.length > maxSubscriptionUriLength)
      return connection.send(
        errorResponse(id, INVALID_PARAMS, `Invalid params: "uri" is longer than this server's limit of ${maxSubscriptionUriLength} characters`),
      );
    if (this.#resourceStreams.size >= maxSubscriptions)
      return connection.send(
        errorResponse(id, INVALID_REQUEST, `Invalid request: this session already holds ${maxSubscriptions} subscriptions, its limit; unsubscribe one first`),
      );
    const refused = await this.#openSubscription(uri);
    if (refused !== undefined) return connection.send(errorResponse(id, refused.code, refused.message, refused.data));
    // Not kept when the other replicas cannot hear of it: the client was told it failed.
    if (!(await this.#share(connection, id))) return void (await this.#resourceStreams.get(uri)?.stream.teardown({ why: "cancelled" }));
    connection.send({ jsonrpc: "2.0", id, result: {} });
  }

  /** Opens the implicit stream of one subscribed URI; the error to answer with when it was not honored. */
  async #openSubscription(uri: string): Promise<{ code: number; message: string; data?: unknown } | undefined> {
    const slotRefusal = this.host.reserveStream(this);
    if (slotRefusal !== undefined) return { code: INTERNAL_ERROR, message: slotRefusalMessage(slotRefusal) };
    const filter = { [URI_KIND!.filterKey]: [uri] } as SubscriptionFilter;
    const open = new ImplicitStream(this, `${this.id}:${uri}`, this.#streamMeta(), filter, this.client);
    this.#resourceStreams.set(uri, open);
    const opened = await this.#open(open);
    const honored = open.honored?.[URI_KIND!.filterKey as keyof SubscriptionFilter];
    if (opened && Array.isArray(honored) && honored.includes(uri)) return undefined;
    if (opened) await open.stream.teardown({ why: "cancelled" }); // narrowed away: nothing is delivered for it
    const refusal = open.refusal;
    return { code: refusal?.code ?? INVALID_PARAMS, message: refusal?.message ?? `The server declined the subscription to ${uri}`, data: refusal?.data };
  }

  async #open(open: ImplicitStream): Promise<boolean> {
    try {
      return await open.open(this.host.subscriptionHandlers);
    } catch (error) {
      this.host.emit({ type: "handler-error", id: open.stream.id, callback: "subscribe", error });
      await open.stream.teardown({ why: "cancelled" });
      return false;
    }
  }

  /** The session's `_meta` with the transport's context on top (frozen; the context is fixed once the session has begun). */
  #streamMeta(): HandlerMeta {
    return (this.#sessionMeta ??= mergeMeta(this.#meta, this.#context));
  }
}

/**
 * Why an `initialize` cannot open a session, or undefined. The era asks before it opens one,
 * so a refused `initialize` leaves no session behind (and an HTTP client gets no session id).
 */
export function initializeRefusal(request: JsonRpcRequest, maxKeptBytes: number): JsonRpcErrorResponse | undefined {
  const params = request.params ?? {};
  const { capabilities, clientInfo } = params;
  if (typeof params["protocolVersion"] !== "string" || !isObject(capabilities) || !isObject(clientInfo))
    return errorResponse(request.id, INVALID_PARAMS, 'Invalid params: initialize needs "protocolVersion", "capabilities" and "clientInfo"');
  // The session keeps these for its whole life (every request's `_meta` carries them): bounded, so sessions cost what the limits say.
  const kept = Buffer.byteLength(JSON.stringify(capabilities)) + Buffer.byteLength(JSON.stringify(clientInfo));
  if (kept <= maxKeptBytes) return undefined;
  return errorResponse(
    request.id,
    INVALID_PARAMS,
    `Invalid params: initialize "capabilities" and "clientInfo" take ${kept} bytes, more than this server's limit of ${maxKeptBytes}`,
  );
}

function answerEmpty(connection: SessionConnection, id: RequestId): void {
  connection.send({ jsonrpc: "2.0", id, result: {} });
}

function isInputRequired(response: JsonRpcResponse): boolean {
  return "result" in response && response.result["resultType"] === INPUT_REQUIRED;
}

/**
 * Legacy HTTP sessions shared by several replicas through a `LegacySessionStore`
 * (session-store.ts). Every replica keeps a copy of every session it hears of: the one that
 * opened it, and each other through the store's `watch` (or on the first request naming it).
 * A copy is a whole `LegacySession` with its implicit streams on this replica's subscription
 * handlers, so any replica answers any request, and every replica's handlers write the
 * session's notifications into the store, where the GET stream is read from (shared-stream.ts)
 * on whichever replica carries it. One published event makes one event in the window: each
 * write names its cause (the publish's `EVENT_ID` and the notification), and the store keeps
 * the first. So a replica that dies takes nothing with it: the others wrote the same events.
 */
import { eventIdOf } from "../events.js";
import type { JsonRpcMessage, JsonRpcResponse, RequestId } from "../jsonrpc.js";
import type { EventHook } from "../hooks.js";
import type { RemoteAnswers } from "./server-requests.js";
import { catchUpSharedStream, closeSharedStream } from "./shared-stream.js";
import type { LegacySession } from "./session.js";
import type { SessionOutput, SessionSharing } from "./session-host.js";
import type { LegacySessionStore, SessionChange, SessionKeeping, SessionRecord, StopListening } from "./session-store.js";

/** What the shared sessions need from the era: its copies, and how to make one. */
export interface SharedSessionsHost {
  readonly emit: EventHook;
  get(id: string): LegacySession | undefined;
  /** A copy of a session another replica opened, registered here. */
  materialize(record: SessionRecord): LegacySession;
  /** Every copy held here. */
  sessions(): Iterable<LegacySession>;
}

/** At most how often one replica tells the store a client named a session. */
const TOUCH_EVERY_MS = 1000;

export class SharedSessions implements SessionSharing {
  readonly #stopWatching: StopListening;
  /** Loads in flight, so two requests naming one unknown session make one copy. */
  readonly #loading = new Map<string, Promise<LegacySession | undefined>>();
  /** When this replica last told the store a client named each session. */
  readonly #touchedAt = new WeakMap<LegacySession, number>();
  readonly #touchEveryMs: number;
  /** Set from a reconnection until every copy is back in the store: the sweep waits, so a store that came back empty ends no session. */
  #resyncing: Promise<void> | undefined;

  constructor(
    readonly store: LegacySessionStore,
    readonly keeping: SessionKeeping,
    readonly host: SharedSessionsHost,
  ) {
    this.#stopWatching = store.watch((change) => this.#changed(change));
    this.#touchEveryMs = Math.min(TOUCH_EVERY_MS, keeping.idleMs / 10, keeping.maxSilentMs / 10);
  }

  /** The session named by a request: this replica's copy, else the store's record made into one; undefined when it ended. */
  find(id: string): LegacySession | undefined | Promise<LegacySession | undefined> {
    const held = this.host.get(id);
    if (held !== undefined) return held;
    let loading = this.#loading.get(id);
    if (loading === undefined) {
      loading = this.store.load(id).then(
        (record) => (record === undefined ? undefined : (this.host.get(id) ?? this.host.materialize(record))),
        (error: unknown) => {
          this.host.emit({ type: "handler-error", id: null, callback: "session store", error });
          return undefined;
        },
      );
      this.#loading.set(id, loading);
      void loading.finally(() => this.#loading.delete(id));
    }
    return loading;
  }

  /** Where a shared session's notifications go: the store's window, written once per cause. */
  output(session: LegacySession): SessionOutput {
    const append = (message: JsonRpcMessage, origin: unknown) =>
      void this.store.append(session.id, JSON.stringify(message), causeOf(message, origin), this.keeping).catch((error: unknown) => {
        this.host.emit({ type: "handler-error", id: null, callback: "session store", error });
      });
    return {
      send: (message) => append(message, undefined),
      sendCaused: append,
      close: () => closeSharedStream(session),
    };
  }

  created(record: SessionRecord): Promise<void> {
    return this.store.create(record, this.keeping);
  }

  saved(record: SessionRecord): Promise<void> {
    return this.store.save(record);
  }

  ended(id: string): void {
    this.store.end(id).catch((error: unknown) => this.host.emit({ type: "handler-error", id: null, callback: "session store", error }));
  }

  cancelled(id: string, requestId: RequestId): void {
    this.store.cancel(id, requestId);
  }

  answer(id: string, response: JsonRpcResponse): Promise<boolean> {
    return this.store.answer(id, response);
  }

  requests(id: string): RemoteAnswers {
    return {
      nextId: () => this.store.nextRequestId(id),
      await: (requestId, ttlMs, listener) => this.store.awaitAnswer(id, requestId, ttlMs, listener),
    };
  }

  /**
   * The client named the session: it lives another `idleMs`. Told to the store at most once
   * per `touchEveryMs` per session here: the expiry needs no finer grain, and a request costs
   * no store write of its own.
   */
  touched(session: LegacySession): void {
    const now = Date.now();
    if (now - (this.#touchedAt.get(session) ?? 0) < this.#touchEveryMs) return;
    this.#touchedAt.set(session, now);
    this.store.touch(session.id, true, this.keeping);
  }

  /** Ends the copies of sessions the store no longer has (expired); keeps alive those whose GET stream is carried here. */
  async sweep(carried: (session: LegacySession) => boolean): Promise<void> {
    await this.#resyncing;
    const copies = [...this.host.sessions()].filter((session) => !session.closed);
    if (copies.length === 0) return;
    const alive = await this.store.alive(copies.map((session) => session.id));
    for (const session of copies) {
      if (!alive.has(session.id)) void session.close("client-gone", true);
      else if (carried(session)) this.store.touch(session.id, false, this.keeping);
    }
  }

  close(): void {
    this.#stopWatching();
  }

  /**
   * After a gap in the connection to the store: each copy is stored again where the store lost
   * it (the replica that does so tells the session's client that what it watches may have
   * changed: its window is gone), and a GET stream carried here reads what it missed.
   */
  async #resync(): Promise<void> {
    for (const session of [...this.host.sessions()]) {
      const record = session.record();
      if (session.closed || record === undefined) continue;
      try {
        if ((await this.store.restore?.(record, this.keeping)) === true) session.missed();
        await catchUpSharedStream(session, this.store);
      } catch (error) {
        this.host.emit({ type: "handler-error", id: null, callback: "session store", error });
      }
    }
  }

  #changed(change: SessionChange): void {
    if (change.type === "reconnected") return void (this.#resyncing = this.#resync().finally(() => (this.#resyncing = undefined)));
    if (change.type === "ended") return void this.host.get(change.id)?.close("cancelled", true);
    if (change.type === "cancelled") return this.host.get(change.id)?.cancelElsewhere(change.requestId);
    const held = this.host.get(change.record.id);
    if (held !== undefined) held.adopt(change.record);
    else this.host.materialize(change.record);
  }
}

/** What caused a notification, the same on every replica: the publish it came from and what it says; undefined when unknown. */
function causeOf(message: JsonRpcMessage, origin: unknown): string | undefined {
  const published = eventIdOf(origin);
  if (published === undefined || !("method" in message)) return undefined;
  const uri = message.params?.["uri"];
  return typeof uri === "string" ? `${published}\n${message.method}\n${uri}` : `${published}\n${message.method}`;
}

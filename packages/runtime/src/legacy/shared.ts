/**
 * Legacy HTTP sessions shared by several replicas through a `LegacySessionStore`
 * (session-store.ts). A replica holds a copy of a session while it serves it: the replica that
 * opened it, for the session's life; any other, from the first request or GET naming it until
 * it has gone unused for a whole sweep. A copy is a whole `LegacySession` with its implicit
 * streams on this replica's handlers, but only one replica, the session's writer, writes its
 * notifications into the store, where its GET stream is read from (shared-stream.ts) on
 * whichever replica carries it. So a replica's heap grows with the sessions it serves, and one
 * published event costs one write per session, however many replicas run.
 *
 * A writer that stops or dies leaves its sessions unwritten until another replica takes them
 * over (the store's `claim`): the next that makes a copy of one, or holds one and hears an
 * event it does not write. The window lacks what was published in between, so the
 * new writer tells the client that each list it listens to, and each resource it subscribed
 * to, may have changed (`missed`). Each notification of an implicit stream says only "read this
 * again", so the client loses none of what they say, only how many there were.
 */
import type { JsonRpcMessage, JsonRpcResponse, RequestId } from "../jsonrpc.js";
import type { EventHook } from "../hooks.js";
import type { RemoteAnswers } from "./server-requests.js";
import { unrefTimer } from "../transports/http-io.js";
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
/** At most how often one replica asks whether the writers of the copies it holds still run. */
const CHECK_WRITERS_EVERY_MS = 1000;

export class SharedSessions implements SessionSharing {
  readonly #stopWatching: StopListening;
  /** Loads in flight, so two requests naming one unknown session make one copy. */
  readonly #loading = new Map<string, Promise<LegacySession | undefined>>();
  /** When this replica last told the store a client named each session. */
  readonly #touchedAt = new WeakMap<LegacySession, number>();
  readonly #touchEveryMs: number;
  /** Set from a reconnection until every copy is back in the store: the sweep waits, so a store that came back empty ends no session. */
  #resyncing: Promise<void> | undefined;
  /** The copies whose notifications this replica writes: those it is the writer of (every copy, with a store that has no writers). */
  readonly #writing = new WeakSet<LegacySession>();
  /** Copies that heard an event another replica writes: whether their writer still runs is asked at the next turn. */
  readonly #unwritten = new Set<LegacySession>();
  #checkTimer: ReturnType<typeof setTimeout> | undefined;
  #checkedAt = 0;
  /** When the last sweep ran: the next lets go of the copies unused since. */
  #sweptAt = Date.now();

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
        (record) => (record === undefined ? undefined : (this.host.get(id) ?? this.#copy(record))),
        (error: unknown) => {
          this.#failed(error);
          return undefined;
        },
      );
      this.#loading.set(id, loading);
      void loading.finally(() => this.#loading.delete(id));
    }
    return loading;
  }

  /**
   * Where a shared session's notifications go: the store's window, written by the session's
   * writer only. `writes`: this replica is the writer (it opened the session).
   */
  output(session: LegacySession, writes: boolean): SessionOutput {
    if (writes || this.store.claim === undefined) this.#writing.add(session);
    const send = (message: JsonRpcMessage) => {
      if (!this.#writing.has(session)) return this.#heardUnwritten(session);
      this.store.append(session.id, JSON.stringify(message), this.keeping).then(
        (appended) => appended === false && this.#writing.delete(session), // another replica took it over
        (error: unknown) => this.#failed(error),
      );
    };
    return { send, close: () => closeSharedStream(session) };
  }

  created(record: SessionRecord): Promise<void> {
    return this.store.create(record, this.keeping);
  }

  saved(record: SessionRecord): Promise<void> {
    return this.store.save(record);
  }

  ended(id: string): void {
    this.store.end(id).catch((error: unknown) => this.#failed(error));
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

  /**
   * Ends the copies of sessions the store no longer has (expired); keeps alive those whose GET
   * stream is carried here; lets go of the copies another replica writes that went unused
   * since the sweep before (the store keeps the session).
   */
  async sweep(carried: (session: LegacySession) => boolean): Promise<void> {
    await this.#resyncing;
    const unusedSince = this.#sweptAt;
    this.#sweptAt = Date.now();
    const copies = [...this.host.sessions()].filter((session) => !session.closed);
    if (copies.length === 0) return;
    const alive = await this.store.alive(copies.map((session) => session.id));
    for (const session of copies) {
      if (!alive.has(session.id)) void session.close("client-gone", true);
      else if (carried(session)) this.store.touch(session.id, false, this.keeping);
      else if (!this.#writing.has(session) && !session.busy && session.lastActive < unusedSince) void session.close("shutdown");
    }
  }

  close(): void {
    this.#stopWatching();
    clearTimeout(this.#checkTimer);
  }

  /** A copy of a session another replica opened; it takes the writing over when its writer no longer runs. */
  #copy(record: SessionRecord): LegacySession {
    const copy = this.host.materialize(record);
    this.#claim([copy]);
    return copy;
  }

  /** A copy heard an event it does not write: whether its writer still runs is asked soon, with the others'. */
  #heardUnwritten(session: LegacySession): void {
    if (this.store.claim === undefined) return;
    this.#unwritten.add(session);
    this.#checkTimer ??= unrefTimer(
      setTimeout(
        () => {
          this.#checkTimer = undefined;
          this.#checkedAt = Date.now();
          const copies = [...this.#unwritten];
          this.#unwritten.clear();
          this.#claim(copies);
        },
        Math.max(0, this.#checkedAt + CHECK_WRITERS_EVERY_MS - Date.now()),
      ),
    );
  }

  /** Takes the writing of those of `copies` whose writer no longer runs; their clients are told they may have missed something. */
  #claim(copies: readonly LegacySession[]): void {
    const unwritten = copies.filter((copy) => !copy.closed && !this.#writing.has(copy));
    if (this.store.claim === undefined || unwritten.length === 0) return;
    this.store.claim(unwritten.map((copy) => copy.id)).then(
      (taken) => {
        for (const copy of unwritten) if (taken.has(copy.id) && !copy.closed) this.#takeOver(copy);
      },
      (error: unknown) => this.#failed(error),
    );
  }

  #takeOver(copy: LegacySession): void {
    this.#writing.add(copy);
    copy.missed();
  }

  #failed(error: unknown): void {
    this.host.emit({ type: "handler-error", id: null, callback: "session store", error });
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
        if ((await this.store.restore?.(record, this.keeping)) === true) this.#takeOver(session); // a restore makes this replica the writer
        await catchUpSharedStream(session, this.store);
      } catch (error) {
        this.#failed(error);
      }
    }
  }

  #changed(change: SessionChange): void {
    if (change.type === "reconnected") return void (this.#resyncing = this.#resync().finally(() => (this.#resyncing = undefined)));
    if (change.type === "ended") return void this.host.get(change.id)?.close("cancelled", true);
    if (change.type === "cancelled") return this.host.get(change.id)?.cancelElsewhere(change.requestId);
    this.host.get(change.record.id)?.adopt(change.record); // a session not served here is not held here
  }
}

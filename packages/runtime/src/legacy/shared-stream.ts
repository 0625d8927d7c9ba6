/**
 * A shared session's GET stream (shared.ts), carried by whichever replica the GET reached.
 * Its events are read from the store's window: what the client missed (after its
 * `Last-Event-ID`, or everything kept on the session's first GET), then each event as the
 * store appends it, from any replica. Event ids are `0-<seq>` (replay.ts's form, the
 * standalone stream's number and the event's place in the store's window), so a client that
 * lost the connection resumes through any replica and misses nothing the window holds.
 */
import { SseWriter, type SseOptions } from "../transports/http-sse.js";
import { unrefTimer, type HttpResponse } from "../transports/http-io.js";
import { eventId, parseEventId, STANDALONE_STREAM, type ResumeOptions } from "./replay.js";
import type { LegacySession } from "./session.js";
import type { LegacySessionStore, StopListening, StoredEvent } from "./session-store.js";

/** What a session's GET stream needs of the era (era.ts): how streams resume, what one may hold, and the store when sessions are shared. */
export interface StreamEra {
  readonly resume: ResumeOptions;
  readonly maxBufferedBytes: number | undefined;
  readonly shared: { readonly store: LegacySessionStore } | undefined;
}

/** One connection carrying a shared session's GET stream on this replica. */
class SharedConnection {
  #writer: SseWriter | undefined;
  #last: number;
  /** Events heard while the replay was read; written after it. */
  #queued: StoredEvent[] | undefined = [];
  #stopFollowing: StopListening = () => {};
  #pollTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly res: HttpResponse,
    readonly sse: SseOptions,
    after: number,
  ) {
    this.#last = after;
  }

  get attached(): boolean {
    return this.#writer !== undefined && !this.#writer.done;
  }

  heard(event: StoredEvent): void {
    if (this.#queued !== undefined) this.#queued.push(event);
    else this.#write(event);
  }

  /** The replay, then the priming event (its id the newest delivered, so a resume from it skips nothing), then what was heard meanwhile. */
  start(missed: readonly StoredEvent[], stop: StopListening, retryMs: number, pollAfterMs: number): void {
    this.#stopFollowing = stop;
    const writer = (this.#writer = new SseWriter(this.res, this.sse));
    for (const event of missed) this.#write(event);
    writer.write(`id: ${eventId(STANDALONE_STREAM, this.#last)}\nretry: ${retryMs}\ndata: \n\n`);
    const queued = this.#queued ?? [];
    this.#queued = undefined;
    for (const event of queued) this.#write(event);
    if (pollAfterMs > 0) this.#pollTimer = unrefTimer(setTimeout(() => this.end(), pollAfterMs));
  }

  /**
   * Reads what the window got while this replica did not hear it (its connection to the store
   * was away); a window that dropped some of it ends the connection, and the client's resume
   * is refused for what is gone, as on any replica.
   */
  async catchUp(store: LegacySessionStore, id: string): Promise<void> {
    if (this.#queued !== undefined || !this.attached) return; // still starting: its replay reads the window
    const missed = await store.after(id, this.#last);
    if (missed === undefined) return this.end();
    for (const event of missed) if (this.attached) this.#write(event);
  }

  /** Ends the connection (polling, a newer connection, the session over); the stream itself lives in the store. */
  end(): void {
    this.#release();
    this.#writer?.end();
  }

  /** The response closed. */
  gone(): void {
    this.#release();
    this.#writer?.destroy();
  }

  #release(): void {
    clearTimeout(this.#pollTimer);
    this.#stopFollowing();
  }

  #write(event: StoredEvent): void {
    if (event.seq <= this.#last) return; // both replayed and heard live
    this.#last = event.seq;
    this.#writer!.write(`id: ${eventId(STANDALONE_STREAM, event.seq)}\nevent: message\ndata: ${event.json}\n\n`);
  }
}

const carried = new WeakMap<LegacySession, SharedConnection>();

/** Whether this replica carries the session's GET stream now (the sweep keeps such sessions alive). */
export function carriesSharedStream(session: LegacySession): boolean {
  return carried.get(session)?.attached === true;
}

/** The connection to the store is back: the GET stream carried here, if any, writes what it missed. */
export async function catchUpSharedStream(session: LegacySession, store: LegacySessionStore): Promise<void> {
  await carried.get(session)?.catchUp(store, session.id);
}

/** The session ended: the connection carrying its stream here, if any, ends. */
export function closeSharedStream(session: LegacySession): void {
  carried.get(session)?.end();
  carried.delete(session);
}

/** Why a GET cannot carry the stream: the status and message to refuse it with; else where the replay starts. */
type Start = { readonly after: number } | { readonly status: number; readonly message: string };

async function startOf(store: LegacySessionStore, session: LegacySession, lastEventId: string | undefined): Promise<Start> {
  if (lastEventId === undefined) {
    if (carriesSharedStream(session)) return { status: 409, message: "this session already has an open GET stream" };
    // The first GET delivers what the session's streams sent before it; a later one starts from now.
    return { after: (await store.firstStream(session.id)) ? 0 : await store.latest(session.id) };
  }
  const cursor = parseEventId(lastEventId);
  if (cursor === undefined || cursor.stream !== STANDALONE_STREAM) {
    return { status: 400, message: `Last-Event-ID "${lastEventId.slice(0, 64)}" is not an event of this session's GET stream; open the GET stream without it` };
  }
  return { after: cursor.seq };
}

/** A GET on a shared session: refuses with `refuse`, or carries the stream on `res` from the window in the store. */
export async function openSharedStream(
  era: StreamEra,
  session: LegacySession,
  res: HttpResponse,
  sse: SseOptions,
  lastEventId: string | undefined,
  refuse: (status: number, message: string) => void,
): Promise<void> {
  const store = era.shared!.store;
  const start = await startOf(store, session, lastEventId);
  if ("status" in start) return refuse(start.status, start.message);
  const connection = new SharedConnection(res, sse, start.after);
  // Followed before the window is read: an event appended in between is heard, and written once.
  const stop = await store.follow(session.id, (event) => connection.heard(event));
  const missed = await store.after(session.id, start.after);
  if (missed === undefined || session.closed) {
    stop();
    if (session.closed) return refuse(404, "Unknown or expired Mcp-Session-Id; send initialize to start a new session");
    const { maxReplayEvents, maxReplayBytes } = era.resume;
    return refuse(
      410,
      `the events after ${lastEventId} are no longer held (a session keeps its last ${maxReplayEvents} events, ${maxReplayBytes} bytes); open the GET stream without Last-Event-ID`,
    );
  }
  // A newer connection wins: the client evidently lost the older one.
  carried.get(session)?.end();
  carried.set(session, connection);
  res.once("close", () => {
    connection.gone();
    if (carried.get(session) === connection) carried.delete(session);
  });
  connection.start(missed, stop, era.resume.retryMs, era.resume.pollAfterMs);
}

/**
 * A legacy session's SSE streams as streams that outlive their HTTP responses (2025-11-25
 * Streamable HTTP, "Polling SSE Streams" and "Resumability and Redelivery"):
 * - a connection opens with a priming event (an event id, the `retry` field, empty data), so
 *   the client can reconnect to it from the start; a resumed one replays first, so ids
 *   increase in the order they are delivered;
 * - every event carries an id (replay.ts) and is kept in the session's replay window;
 * - the server may close the connection without ending the stream (polling: after
 *   `pollAfterMs`, or when a tool asks through `closeSseStream()`); what the stream sends
 *   meanwhile is kept, and a GET with `Last-Event-ID` carries the stream again, replaying
 *   what the client missed; a POST stream ends once its response went out;
 * - a client that drops the connection is not cancelling (the spec's words): its request
 *   keeps running and the answer waits in the window.
 */
import { ERROR_CODES } from "../protocol.js";
import { errorResponse } from "../jsonrpc.js";
import { SseWriter, type SseOptions } from "../transports/http-sse.js";
import { unrefTimer, type HttpResponse } from "../transports/http-io.js";
import type { EraHttpExchange as LegacyHttpExchange } from "../era.js";
import type { LegacySession } from "./session.js";
import type { SessionOutput } from "./session-host.js";
import { eventId, parseEventId, ReplayBuffer, STANDALONE_STREAM, type ReplayEvent, type ResumeOptions } from "./replay.js";
import { openSharedStream, type StreamEra } from "./shared-stream.js";

export type { ResumeOptions };

function messageFrame(id: string, json: string): string {
  return `id: ${id}\nevent: message\ndata: ${json}\n\n`;
}

/** One logical SSE stream: the standalone GET stream, or one POST's response stream. */
export class ResumableStream {
  #writer: SseWriter | undefined;
  #pollTimer: NodeJS.Timeout | undefined;
  #finished = false;

  constructor(
    readonly streams: SessionStreams,
    readonly number: number,
    /** Called once when the stream is over: its last event is out, or the session ended. */
    readonly onEnd: () => void = () => {},
  ) {}

  get attached(): boolean {
    return this.#writer !== undefined && !this.#writer.done;
  }
  get finished(): boolean {
    return this.#finished;
  }

  /**
   * Carries the stream on `res`: `missed` (what followed the client's `Last-Event-ID`), then
   * a priming event. The priming event comes last because its id is a new one, later than
   * every replayed event's: written first, a client that lost the connection right after it
   * would resume from there and never get the replay. An older connection carrying the
   * stream is closed: the client evidently lost it.
   */
  attach(res: HttpResponse, sse: SseOptions, missed: readonly ReplayEvent[] = []): void {
    this.#detach();
    const writer = new SseWriter(res, sse);
    this.#writer = writer;
    const { buffer, options } = this.streams;
    for (const event of missed) writer.write(messageFrame(eventId(event.stream, event.seq), event.json));
    writer.write(`id: ${buffer.mark(this.number)}\nretry: ${options.retryMs}\ndata: \n\n`);
    res.once("close", () => {
      writer.destroy();
      if (this.#writer === writer) this.#detach();
    });
    if (this.#finished) return writer.end();
    if (options.pollAfterMs > 0) this.#pollTimer = unrefTimer(setTimeout(() => this.poll(), options.pollAfterMs));
  }

  /** Sends one event (kept for replay, written when a connection carries the stream); false once the stream is over. */
  send(json: string): boolean {
    if (this.#finished) return false;
    const id = this.streams.buffer.record(this.number, json);
    this.#writer?.write(messageFrame(id, json));
    return true;
  }

  /** Sends the stream's last event: the connection ends once it is out, and a resume replays, then ends. */
  finish(json: string): void {
    if (!this.send(json)) return;
    this.#end();
    this.#writer?.end();
  }

  /** Closes the connection without ending the stream: the client reconnects with `Last-Event-ID` after `retry`. */
  poll(): boolean {
    if (this.#writer === undefined || this.#finished) return false;
    const writer = this.#writer;
    this.#detach(false);
    writer.end();
    return true;
  }

  /** The session is over: the connection closes and nothing more is sent. */
  close(): void {
    const writer = this.#writer;
    this.#detach(false);
    this.#end();
    writer?.end();
  }

  #end(): void {
    if (this.#finished) return;
    this.#finished = true;
    clearTimeout(this.#pollTimer);
    this.streams.posts.delete(this.number);
    this.onEnd();
  }

  /** Forgets the connection carrying the stream; `drop` also cuts it (what it still holds is lost, the window keeps it). */
  #detach(drop = true): void {
    clearTimeout(this.#pollTimer);
    this.#pollTimer = undefined;
    const writer = this.#writer;
    if (writer === undefined) return;
    this.#writer = undefined;
    if (drop && !writer.done) writer.destroy();
    this.streams.touch(); // idle time counts from the last connection
  }
}

/** A session's streams and replay window, kept beside the session (it knows nothing of them). */
export class SessionStreams {
  readonly buffer: ReplayBuffer;
  /** POST streams not yet over, by number. */
  readonly posts = new Map<number, ResumableStream>();
  standalone: ResumableStream | undefined;

  constructor(
    readonly options: ResumeOptions,
    /** Marks the session active (a connection carrying one of its streams just ended). */
    readonly touch: () => void,
    /** Shared by replicas: POST streams numbered from a random base, so one replica's never names another's. */
    shared = false,
  ) {
    const firstStream = shared ? 1 + randomStreamNumber() : undefined;
    this.buffer = new ReplayBuffer({ maxEvents: options.maxReplayEvents, maxBytes: options.maxReplayBytes }, firstStream);
  }

  /** A new POST response stream. */
  openPost(onEnd: () => void): ResumableStream {
    const stream = new ResumableStream(this, this.buffer.newStream(), onEnd);
    this.posts.set(stream.number, stream);
    return stream;
  }

  /** The session ended: every stream closes and the window is dropped. */
  close(): void {
    this.standalone?.close();
    for (const stream of [...this.posts.values()]) stream.close();
    this.buffer.clear();
  }
}

const sessionStreams = new WeakMap<LegacySession, SessionStreams>();

export function streamsOf(session: LegacySession, options: ResumeOptions): SessionStreams {
  let streams = sessionStreams.get(session);
  if (streams === undefined) {
    streams = new SessionStreams(options, () => (session.lastActive = Date.now()), session.host.sharing !== undefined);
    sessionStreams.set(session, streams);
  }
  return streams;
}

/** The session ended: its streams close and its replay window is dropped. */
export function closeStreams(session: LegacySession): void {
  sessionStreams.get(session)?.close();
}

/**
 * A GET on a session: with `Last-Event-ID`, the stream that id belongs to, resumed after
 * it; without, the standalone stream from now on (409 while a connection carries it).
 */
export function openSessionStream(era: StreamEra, session: LegacySession, exchange: LegacyHttpExchange): void | Promise<void> {
  const { req, res } = exchange;
  const refuse = (status: number, message: string) => exchange.reject({ status, body: errorResponse(null, ERROR_CODES.InvalidRequestError, message) });
  if (!String(req.headers.get("accept") ?? "").includes("text/event-stream")) return refuse(406, "the GET stream needs Accept: text/event-stream");
  const streams = streamsOf(session, era.resume);
  const sse = era.maxBufferedBytes === undefined ? exchange.sse : { ...exchange.sse, maxBufferedBytes: era.maxBufferedBytes };
  const lastEventId = req.headers.get("last-event-id");
  // Shared sessions: the GET stream is read from the store; a POST stream resumes on the replica that ran its request.
  if (era.shared !== undefined && !resumesLocalPost(streams, lastEventId)) {
    return openSharedStream(era, session, res, sse, typeof lastEventId === "string" ? lastEventId : undefined, refuse);
  }
  if (typeof lastEventId !== "string") {
    if (streams.standalone?.attached) return refuse(409, "this session already has an open GET stream");
    return carryStandalone(session, streams, res, sse, []);
  }
  const cursor = parseEventId(lastEventId);
  if (cursor === undefined || !streams.buffer.knows(cursor.stream)) {
    return refuse(400, `Last-Event-ID "${lastEventId.slice(0, 64)}" was not sent by this session; open the GET stream without it`);
  }
  const missed = streams.buffer.after(cursor);
  if (missed === undefined) {
    const { maxReplayEvents, maxReplayBytes } = era.resume;
    return refuse(
      410,
      `the events after ${lastEventId} are no longer held (a session keeps its last ${maxReplayEvents} events, ${maxReplayBytes} bytes); ` +
        (cursor.stream === STANDALONE_STREAM ? "open the GET stream without Last-Event-ID" : "send the request again"),
    );
  }
  if (cursor.stream === STANDALONE_STREAM) return carryStandalone(session, streams, res, sse, missed);
  const stream = streams.posts.get(cursor.stream);
  if (stream !== undefined) return stream.attach(res, sse, missed);
  // A POST stream that is already over: what it sent after the cursor, then the end.
  const past = new ResumableStream(streams, cursor.stream);
  past.close();
  past.attach(res, sse, missed);
}

/** Whether `lastEventId` names a POST stream of this replica (a shared session's other streams are read from the store). */
function resumesLocalPost(streams: SessionStreams, lastEventId: string | null | undefined): boolean {
  const cursor = typeof lastEventId === "string" ? parseEventId(lastEventId) : undefined;
  return cursor !== undefined && cursor.stream !== STANDALONE_STREAM && streams.buffer.knows(cursor.stream);
}

/**
 * Carries the session's standalone stream on `res`, making it on the first GET; the
 * session's notifications go to it from then on. It becomes the output only once attached,
 * so what waited for the first GET follows the priming event.
 */
function carryStandalone(session: LegacySession, streams: SessionStreams, res: HttpResponse, sse: SseOptions, missed: readonly ReplayEvent[]): void {
  const made = streams.standalone === undefined;
  const stream = (streams.standalone ??= new ResumableStream(streams, STANDALONE_STREAM));
  stream.attach(res, sse, missed);
  if (made) session.attachOutput(outputOf(stream, streams));
}

function outputOf(stream: ResumableStream, streams: SessionStreams): SessionOutput {
  const output: SessionOutput & { readonly attached: boolean } = {
    send: (message) => void stream.send(JSON.stringify(message)),
    close: () => streams.close(),
    get attached() {
      return stream.attached;
    },
  };
  return output;
}

/** A random number below 2^40, from Web Crypto (the fetch path imports no node: module). */
function randomStreamNumber(): number {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return (words[0]! % 2 ** 8) * 2 ** 32 + words[1]!;
}

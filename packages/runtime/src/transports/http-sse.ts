/**
 * One Server-Sent Events response: the frames of one POST's stream (a request's
 * notifications and response, or a whole `subscriptions/listen` stream).
 *
 * Frames written in one turn of the event loop (a burst fanned out to this stream) are
 * joined into one string and written once at the end of the turn: one HTTP chunk and one
 * socket write per burst instead of one per frame.
 *
 * Slow consumers: a client that stops reading must not make the server buffer without
 * bound. While the client keeps up, each turn's frames are written. When a turn starts with
 * more than `highWaterBytes` held, the stream is congested: new frames wait in a pending
 * list where a frame identical to one already waiting is dropped (coalesced: two identical
 * `list_changed` notifications say no more than one); the list is flushed on `drain`.
 *
 * What a stream holds is counted as memory (sse-hold.ts). A stream is evicted (its response
 * destroyed: the server sees the client gone, reported as "evicted", and handleClose runs)
 * when
 * - it would hold more than `maxBufferedBytes` (per-stream cap), or
 * - it stalled for `maxStalledMs`: a write was refused (the kernel's buffers are full) and
 *   the socket has not drained since (sse-hold.ts). What the kernel takes first is
 *   invisible to the server: a client that stops reading is seen only once the kernel
 *   refuses (on Linux the socket's send buffer, up to net.ipv4.tcp_wmem's maximum, 4 MiB by
 *   default, plus the peer's receive window). So a stuck client leaves at most that plus
 *   `maxBufferedBytes` unread, of which only the latter is in the server's memory; or
 * - all streams together hold more than the server-wide budget and it is among those
 *   holding the most (see sse-budget.ts; streams whose writes the socket took are never
 *   evicted for the budget).
 */
import { errorResponse, type RequestId } from "../jsonrpc.js";
import { ERROR_CODES } from "../protocol.js";
import type { SseBudget } from "./sse-budget.js";
import { StreamHold, type Eviction } from "./sse-hold.js";
import { httpChunk, sseFrame, SSE_HEADERS, type SharedFrame } from "./sse-frames.js";
import { TimerGroups, type TimerGroup } from "./timer-group.js";
import { afterThisStep, utf8Length, type HttpResponse, type HttpSocket } from "./http-io.js";

export type { Eviction } from "./sse-hold.js";

export interface SseOptions {
  /** Keep-alive comment interval in ms; 0 disables. Default 15 000. */
  readonly keepAliveMs?: number;
  /** Held bytes above which a turn's frames wait (and coalesce); never below Node's high-water mark for the socket. Default 256 KiB: above one burst. */
  readonly highWaterBytes?: number;
  /** Held bytes above which the stream is evicted. Default 1 MiB. */
  readonly maxBufferedBytes?: number;
  /** A stream whose socket refused a write and has not drained for this long is evicted, even within the budget; 0 never. Default 30 000. */
  readonly maxStalledMs?: number;
  /** The server-wide budget this stream counts against; none when absent. */
  readonly budget?: SseBudget;
}

export const DEFAULT_KEEP_ALIVE_MS = 15_000;
export const DEFAULT_HIGH_WATER_BYTES = 256 * 1024;
export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
export const DEFAULT_MAX_STALLED_MS = 30_000;

const KEEP_ALIVE_FRAME = ": keep-alive\n\n";

export class SseWriter {
  readonly #res: HttpResponse;
  readonly #highWater: number;
  /** What the stream holds, against its cap, the stall time and the budget. */
  readonly #hold: StreamHold;
  /** The streams this one shares a keep-alive timer with. */
  #keepAlive: TimerGroup<SseWriter> | undefined;
  readonly #onDrain: () => void;
  /** The socket this writer writes whole HTTP chunks to, from its second write on (see #write). */
  #chunkSocket: HttpSocket | undefined;
  /** This turn's frames, written together when the turn ends. */
  #batch = "";
  #inTurn = false;
  #congested = false;
  /** Frames waiting while congested, in order; a Set, so an identical frame is not queued twice. Made when first needed. */
  #pending: Set<string> | undefined;
  #endAfterFlush = false;
  #done = false;
  /** Frames dropped because an identical one was already waiting. */
  coalescedFrames = 0;
  /** Why the writer ended the stream, when the client did not keep up. */
  eviction: Eviction | undefined;

  constructor(res: HttpResponse, options: SseOptions = {}) {
    this.#res = res;
    // Never below Node's high-water mark for the socket (16 KiB, 64 KiB from Node 22): then
    // a stream congested by the writer has had a write refused, so 'drain' comes to flush
    // its waiting frames and the stall clock runs. Below it, Node refuses nothing: no
    // 'drain' ever comes, frames wait until the cap, and a stuck client is never stalled.
    this.#highWater = Math.max(options.highWaterBytes ?? DEFAULT_HIGH_WATER_BYTES, res.writableHighWaterMark || 0);
    // No flushHeaders: the writer exists because a frame is about to be written, and the
    // headers travel with it.
    res.writeHead(200, SSE_HEADERS);
    this.#hold = new StreamHold(this, {
      maxBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
      maxStalledMs: options.maxStalledMs ?? DEFAULT_MAX_STALLED_MS,
      budget: options.budget,
      nodeHighWater: res.writableHighWaterMark,
    });
    // Per-stream closures are the cheap kind: one inline arrow, the rest static methods.
    this.#onDrain = () => this.#drained();
    res.on("drain", this.#onDrain);
    const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    if (keepAliveMs > 0) (this.#keepAlive = keepAlives.for(keepAliveMs)).add(this);
  }

  /** Whether the stream is over (ended, evicted or closed by the peer). */
  get done(): boolean {
    return this.#done || this.#res.destroyed;
  }

  /** Whether the writer ended the stream because the client did not keep up. */
  get overflowed(): boolean {
    return this.eviction !== undefined;
  }

  get heldBytes(): number {
    return this.#hold.heldBytes;
  }

  /** The most bytes this stream ever held (counted as in sse-hold.ts); for tests and metrics. */
  get peakBufferedBytes(): number {
    return this.#hold.peakBytes;
  }

  /** Writes (or queues) one frame; returns false when the stream is over. */
  write(frame: string): boolean {
    if (this.done) return false;
    if (!this.#inTurn && !this.#startTurn()) return false;
    if (!this.#congested) {
      // Checked exactly only near the cap: a UTF-8 byte is at most 3 UTF-16 units.
      const hold = this.#hold;
      if (!hold.fits(3 * (this.#batch.length + frame.length), 1) && !hold.fits(utf8Length(this.#batch + frame), 1)) return this.evict("stream-cap");
      this.#batch += frame;
      return true;
    }
    const pending = (this.#pending ??= new Set());
    if (pending.has(frame)) {
      this.coalescedFrames++;
      return true;
    }
    if (!this.#hold.queue(utf8Length(frame))) return this.evict("stream-cap");
    pending.add(frame); // queue() may have evicted this stream to keep the budget: then finish() drops the list
    return !this.done;
  }

  /**
   * Writes the answer to a request, however large, when the client has taken what it was
   * sent (the stream is not congested): stdio and a POST answered with JSON deliver an answer
   * of any size, so one over the cap is written whole rather than evicting a client that reads
   * (the cap counts above it until the socket drains, sse-hold.ts). On a congested stream it
   * is queued like any frame when it fits the cap, else nothing is written: "behind", and
   * the caller answers the request otherwise. False when the stream is over.
   */
  writeAnswer(frame: string): boolean | "behind" {
    if (this.done) return false;
    if (!this.#inTurn && !this.#startTurn()) return false;
    const hold = this.#hold;
    if (hold.fits(3 * (this.#batch.length + frame.length), 1) || hold.fits(utf8Length(this.#batch + frame), 1)) return this.write(frame);
    if (this.#congested) return "behind";
    this.#flushBatch(); // this turn's earlier frames go first
    hold.allowWhole(utf8Length(frame));
    this.#write(frame);
    return !this.done;
  }

  /**
   * Writes one large frame as its shared bytes around `idJson` (see SharedFrame): after
   * this turn's earlier frames, in three writes of their own. A congested stream queues it
   * as text (`json`) like any frame. Returns false when the stream is over.
   *
   * The shared bytes are one buffer in memory however many streams write it; this stream's
   * cap and the server-wide budget count them whole for this stream (see sse-budget.ts).
   */
  writeShared(frame: SharedFrame, idJson: string, json: string): boolean {
    if (this.done) return false;
    if (!this.#inTurn && !this.#startTurn()) return false;
    if (this.#congested) return this.write(sseFrame(json));
    this.#flushBatch();
    if (!this.#hold.fits(frame.bytes + 3 * idJson.length, 3)) return this.evict("stream-cap");
    const res = this.#res;
    const socket = res.socket;
    socket?.cork(); // the three go out together, now (see #write)
    res.write(frame.head);
    res.write(idJson);
    const accepted = res.write(frame.tail);
    socket?.uncork();
    this.#hold.wrote(3, !accepted, res.writableLength);
    return !this.done;
  }

  /** Writes the last frame (if any) and ends the response once everything before it is out. */
  end(frame?: string): void {
    if (this.done) return;
    if (frame !== undefined && !this.write(frame)) return;
    if (this.#pending !== undefined) {
      this.#endAfterFlush = true;
      return;
    }
    this.#flushBatch();
    this.#finish();
    this.#res.end();
  }

  /** Ends the stream at once, dropping what waits (an outside teardown for the server). */
  destroy(): void {
    this.#finish();
    this.#res.destroy();
  }

  /** Ends a stream whose client does not keep up; the server sees it as evicted. */
  evict(reason: Eviction): false {
    this.eviction ??= reason;
    this.destroy();
    return false;
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#keepAlive?.delete(this);
    this.#keepAlive = undefined;
    this.#res.off("drain", this.#onDrain);
    this.#chunkSocket?.off("drain", this.#onDrain);
    this.#batch = "";
    this.#pending = undefined;
    this.#hold.end();
  }

  /**
   * The first frame of a turn decides for the whole turn: a client that took what was
   * written before (held bytes under the high-water mark, nothing waiting) gets the burst
   * as one write when the turn ends; otherwise the stream is congested and the burst waits.
   * False when the stream was evicted for staying stalled too long.
   */
  #startTurn(): boolean {
    this.#inTurn = true;
    // One tick flushes every writer of this turn: a burst to 10,000 streams queues one tick, not 10,000.
    if (SseWriter.#turn.push(this) === 1) afterThisStep(SseWriter.#endTurn);
    const buffered = this.#res.writableLength;
    this.#hold.account(buffered);
    this.#congested = this.#pending !== undefined || buffered > this.#highWater;
    return !this.#hold.evictIfStalled();
  }

  /** Writers that started a turn and have not flushed it yet, in the order they started. */
  static #turn: SseWriter[] = [];

  static #endTurn(): void {
    const writers = SseWriter.#turn;
    SseWriter.#turn = []; // a writer starting its next turn during the flush queues anew
    for (const writer of writers) {
      writer.#inTurn = false;
      if (!writer.done) writer.#flushBatch();
    }
  }

  #flushBatch(): void {
    if (this.#batch.length === 0) return;
    this.#write(this.#batch);
    this.#batch = "";
  }

  /**
   * One write, then the held bytes accounted again. The first write goes through the
   * response: it carries the headers. Then, where the response is chunked and holds nothing
   * of its own, each text goes straight to the socket as one whole HTTP chunk: one string in
   * one write, where the response would queue four pieces and gather them into a writev
   * (about a quarter of the server's CPU in a burst, bench/soak/soak.ts).
   *
   * Every write is corked: the text is queued before it is sent, so a write that reaches the
   * high-water mark is refused and 'drain' follows even when the kernel then takes it all at
   * once. #drained refills on that 'drain'.
   */
  #write(text: string): void {
    const socket = this.#chunkSocket;
    let accepted: boolean;
    if (socket?.writable === true) {
      socket.cork();
      accepted = socket.write(httpChunk(text));
      socket.uncork();
    } else {
      accepted = this.#writeThroughResponse(text);
    }
    this.#hold.wrote(1, !accepted, this.#res.writableLength);
  }

  /** Corked, the response's chunk goes to the socket now, in one writev: uncorked, Node queues a tick per response to send it. */
  #writeThroughResponse(text: string): boolean {
    const res = this.#res;
    const socket = res.socket;
    socket?.cork();
    const accepted = res.write(text);
    socket?.uncork();
    if (this.#chunkSocket === undefined && socket !== null && writesChunksStraightThrough(res, socket)) {
      // From here the socket signals the backpressure of the writes made to it.
      this.#chunkSocket = socket;
      res.off("drain", this.#onDrain);
      socket.on("drain", this.#onDrain);
    }
    return accepted;
  }

  #drained(): void {
    if (this.done) return;
    this.#hold.drained(); // the client took everything Node held: not stalled, whatever comes next
    const pending = this.#pending;
    // Refill up to the high-water mark, in one write; the rest waits for the next drain.
    let refill = "";
    if (pending !== undefined) {
      const room = this.#highWater - this.#res.writableLength;
      for (const frame of pending) {
        if (refill.length >= room) break;
        refill += frame;
        pending.delete(frame);
        this.#hold.unqueue(utf8Length(frame));
      }
      if (pending.size === 0) this.#pending = undefined;
    }
    if (refill.length > 0) this.#write(refill);
    else this.#hold.account(this.#res.writableLength);
    if (this.#pending === undefined && this.#endAfterFlush) {
      this.#finish();
      this.#res.end();
    }
  }

  /**
   * A comment line: ignored by SSE parsers, keeps proxies from timing the stream out. On
   * a congested stream it waits like any frame (at most one: identical ones coalesce).
   */
  sendKeepAlive(): void {
    if (!this.done) this.write(KEEP_ALIVE_FRAME);
  }
}

/** One keep-alive timer per interval for all streams, not one per stream (see TimerGroup). */
const keepAlives = new TimerGroups<SseWriter>(
  (intervalMs) => intervalMs,
  (writer) => writer.sendKeepAlive(),
);

/**
 * Whether the response has sent its headers in chunked encoding and holds none of its own
 * bytes (everything written went to the socket), so a whole chunk written to the socket
 * lands in order. `chunkedEncoding` is Node's own field; where it is missing, never.
 */
function writesChunksStraightThrough(res: HttpResponse, socket: HttpSocket): boolean {
  return (res as { chunkedEncoding?: boolean }).chunkedEncoding === true && res.headersSent && res.writableLength === socket.writableLength;
}

/**
 * Writes request `id`'s answer on `writer` (`writeAnswer`: whole, however large, to a client
 * that reads). A client that has not taken what it was sent gets, instead of an eviction that
 * would end its stream (and a 2025 session with it), an error answer it can retry on. False
 * when the stream is over.
 */
export function writeAnswerFrame(writer: SseWriter, json: string, id: RequestId): boolean {
  const written = writer.writeAnswer(sseFrame(json));
  if (written !== "behind") return written;
  const message = `The answer (${json.length} characters) is more than this event stream may hold while its client has not read what it was sent; send the request again once it has`;
  return writer.write(sseFrame(JSON.stringify(errorResponse(id, ERROR_CODES.InternalError, message))));
}

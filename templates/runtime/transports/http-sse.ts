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
 * more than `highWaterBytes` still in the response's own buffer (`writableLength`), the
 * stream is congested: new frames wait in a pending list where a frame identical to one
 * already waiting is dropped (coalesced: two identical `list_changed` notifications say no
 * more than one). The pending list is flushed on `drain`. If buffer plus pending would
 * exceed `maxBufferedBytes`, the client is not keeping up at all: the stream is ended by
 * destroying the response, which the server sees as an outside teardown (handleClose).
 * So one stream never holds more than `maxBufferedBytes`.
 */
import type { ServerResponse } from "node:http";

export interface SseOptions {
  /** Keep-alive comment interval in ms; 0 disables. Default 15 000. */
  readonly keepAliveMs?: number;
  /** Buffered bytes above which a turn's frames wait (and coalesce). Default 256 KiB: above one burst. */
  readonly highWaterBytes?: number;
  /** Buffered plus waiting bytes above which the stream is ended. Default 1 MiB. */
  readonly maxBufferedBytes?: number;
}

export const DEFAULT_KEEP_ALIVE_MS = 15_000;
export const DEFAULT_HIGH_WATER_BYTES = 256 * 1024;
export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;

const KEEP_ALIVE_FRAME = ": keep-alive\n\n";

/** Response headers of an SSE stream; `X-Accel-Buffering: no` keeps nginx from holding frames. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/** One SSE frame carrying one JSON-RPC message (JSON text has no raw newlines). */
export function sseFrame(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

export class SseWriter {
  readonly #res: ServerResponse;
  readonly #highWater: number;
  readonly #maxBuffered: number;
  #keepAlive: NodeJS.Timeout | undefined;
  /** This turn's frames, written together when the turn ends. */
  #batch = "";
  #inTurn = false;
  #congested = false;
  #pending: string[] = [];
  #pendingSet = new Set<string>();
  #pendingBytes = 0;
  #endAfterFlush = false;
  #done = false;
  /** The most bytes this stream ever held (buffer plus waiting frames); for tests and metrics. */
  peakBufferedBytes = 0;
  /** Frames dropped because an identical one was already waiting. */
  coalescedFrames = 0;
  /** Whether the writer ended the stream because the client did not keep up. */
  overflowed = false;

  constructor(res: ServerResponse, options: SseOptions = {}) {
    this.#res = res;
    this.#highWater = options.highWaterBytes ?? DEFAULT_HIGH_WATER_BYTES;
    this.#maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    // No flushHeaders: the writer exists because a frame is about to be written, and the
    // headers travel with it.
    res.writeHead(200, SSE_HEADERS);
    res.on("drain", this.#onDrain);
    const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    if (keepAliveMs > 0) {
      // Not unref'd: the open socket keeps the process alive anyway, and a ref'd timer is
      // visible to leak checks (process.getActiveResourcesInfo).
      this.#keepAlive = setInterval(this.#sendKeepAlive, keepAliveMs);
    }
  }

  /** Whether the stream is over (ended, overflowed or closed by the peer). */
  get done(): boolean {
    return this.#done || this.#res.destroyed;
  }

  /** Writes (or queues) one frame; returns false when the stream is over. */
  write(frame: string): boolean {
    if (this.done) return false;
    if (!this.#inTurn) this.#startTurn();
    if (!this.#congested) {
      // Checked exactly only near the cap: a UTF-8 byte is at most 3 UTF-16 units.
      const buffered = this.#res.writableLength;
      if (buffered + 3 * (this.#batch.length + frame.length) > this.#maxBuffered && buffered + Buffer.byteLength(this.#batch + frame) > this.#maxBuffered) {
        return this.#overflow();
      }
      this.#batch += frame;
      return true;
    }
    if (this.#pendingSet.has(frame)) {
      this.coalescedFrames++;
      return true;
    }
    const size = Buffer.byteLength(frame);
    if (this.#res.writableLength + this.#pendingBytes + size > this.#maxBuffered) return this.#overflow();
    this.#pending.push(frame);
    this.#pendingSet.add(frame);
    this.#pendingBytes += size;
    this.#notePeak(this.#pendingBytes);
    return true;
  }

  /** Writes the last frame (if any) and ends the response once everything before it is out. */
  end(frame?: string): void {
    if (this.done) return;
    if (frame !== undefined && !this.write(frame)) return;
    if (this.#pending.length > 0) {
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

  #finish(): void {
    this.#done = true;
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
    this.#res.off("drain", this.#onDrain);
    this.#batch = "";
    this.#pending = [];
    this.#pendingSet.clear();
    this.#pendingBytes = 0;
  }

  /**
   * The first frame of a turn decides for the whole turn: a client that took what was
   * written before (buffer under the high-water mark, nothing waiting) gets the burst as
   * one write when the turn ends; otherwise the stream is congested and the burst waits.
   */
  #startTurn(): void {
    this.#inTurn = true;
    this.#congested = this.#pending.length > 0 || this.#res.writableLength > this.#highWater;
    process.nextTick(this.#endTurn);
  }

  readonly #endTurn = (): void => {
    this.#inTurn = false;
    if (!this.done) this.#flushBatch();
  };

  #flushBatch(): void {
    if (this.#batch.length === 0) return;
    this.#res.write(this.#batch);
    this.#batch = "";
    this.#notePeak(0);
  }

  #overflow(): false {
    this.overflowed = true;
    this.destroy();
    return false;
  }

  #notePeak(pendingBytes: number): void {
    const total = this.#res.writableLength + pendingBytes;
    if (total > this.peakBufferedBytes) this.peakBufferedBytes = total;
  }

  readonly #onDrain = (): void => {
    if (this.done) return;
    const pending = this.#pending;
    this.#pending = [];
    this.#pendingSet.clear();
    this.#pendingBytes = 0;
    // Refill up to the high-water mark, in one write; the rest waits for the next drain.
    let index = 0;
    let refill = "";
    const room = this.#highWater - this.#res.writableLength;
    while (index < pending.length && refill.length < room) refill += pending[index++]!;
    if (refill.length > 0) this.#res.write(refill);
    for (; index < pending.length; index++) {
      const frame = pending[index]!;
      this.#pending.push(frame);
      this.#pendingSet.add(frame);
      this.#pendingBytes += Buffer.byteLength(frame);
    }
    this.#notePeak(this.#pendingBytes);
    if (this.#pending.length === 0 && this.#endAfterFlush) {
      this.#finish();
      this.#res.end();
    }
  };

  readonly #sendKeepAlive = (): void => {
    // A comment line: ignored by SSE parsers, keeps proxies from timing the stream out.
    if (!this.done && this.#pending.length === 0) this.write(KEEP_ALIVE_FRAME);
  };
}

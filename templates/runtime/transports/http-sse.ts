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
 * What a stream holds is counted as memory, not payload: the response's and socket's own
 * buffered bytes (`writableLength`), the waiting frames' UTF-8 size (never less than their
 * in-heap size), and a measured bookkeeping cost per waiting frame and per buffered write.
 * A stream is evicted (its response destroyed: the server sees the client gone, reported as
 * "evicted", and handleClose runs) when
 * - it would hold more than `maxBufferedBytes` (per-stream cap), or
 * - it stalled for `maxStalledMs`: a write was refused (Node's buffer for the socket went
 *   over its high-water mark, so the kernel's buffers are full) and the socket has not
 *   drained since. A shared timer checks, so a stalled stream ends on time even when
 *   nothing more is sent to it. What the kernel takes first is invisible to the server: a
 *   client that stops reading is seen only once the kernel refuses (on Linux the socket's
 *   send buffer, up to net.ipv4.tcp_wmem's maximum, 4 MiB by default, plus the peer's
 *   receive window). So a stuck client leaves at most that plus `maxBufferedBytes` unread,
 *   of which only the latter is in the server's memory; or
 * - all streams together hold more than the server-wide budget and it is among those
 *   holding the most (see sse-budget.ts; streams whose writes the socket took are never
 *   evicted for the budget).
 */
import type { ServerResponse } from "node:http";
import { SseBudget, type BudgetedStream } from "./sse-budget.js";
import type { SharedText } from "../transport.js";

export interface SseOptions {
  /** Keep-alive comment interval in ms; 0 disables. Default 15 000. */
  readonly keepAliveMs?: number;
  /** Held bytes above which a turn's frames wait (and coalesce). Default 256 KiB: above one burst. */
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
/**
 * Bookkeeping per waiting frame (its array slot and Set entry, the string headers) and per
 * write waiting in Node's buffers (the write request, the chunk-size strings). Measured with
 * 230-byte frames on 20 stalled streams: about 43 and 220 bytes of heap beyond the payload.
 */
const PENDING_FRAME_OVERHEAD = 64;
const BUFFERED_WRITE_OVERHEAD = 256;

/** Why a stream was evicted. */
export type Eviction = "stream-cap" | "server-budget" | "stalled";

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

/**
 * Text at least this long that every stream of a fan-out shares (all but the id) is
 * written as shared bytes: a string write would copy it for each stream (and flatten it in
 * the heap first), 128 MB for a 128 KB update to 1,000 streams.
 */
export const SHARED_FRAME_MIN_CHARS = 16 * 1024;

/** A frame's bytes around the id, encoded once for every stream of a fan-out. */
export interface SharedFrame {
  readonly head: Buffer;
  readonly tail: Buffer;
}

const sharedFrames = new WeakMap<SharedText, SharedFrame>();

/** The shared bytes of the frames made from `text` (kept while `text` is). */
export function sharedFrame(text: SharedText): SharedFrame {
  let frame = sharedFrames.get(text);
  if (frame === undefined) {
    frame = { head: Buffer.from(`event: message\ndata: ${text.before}`), tail: Buffer.from(`${text.after}\n\n`) };
    sharedFrames.set(text, frame);
  }
  return frame;
}

export class SseWriter implements BudgetedStream {
  readonly #res: ServerResponse;
  readonly #highWater: number;
  readonly #maxBuffered: number;
  readonly #maxStalledMs: number;
  readonly #budget: SseBudget | undefined;
  /** Node's high-water mark for the socket (where `write` starts returning false); fixed per socket. */
  readonly #nodeHighWater: number;
  /** The streams this one shares a keep-alive timer with. */
  #keepAlive: KeepAliveGroup | undefined;
  readonly #onDrain: () => void;
  /** This turn's frames, written together when the turn ends. */
  #batch = "";
  #inTurn = false;
  #congested = false;
  /** Marked in the budget as holding more than Node's high-water mark. */
  #candidate = false;
  /** When a write was refused with no drain since (Date.now()); 0 while not stalled. */
  #stalledSince = 0;
  /** Frames waiting while congested, in order; a Set, so an identical frame is not queued twice. Made when first needed. */
  #pending: Set<string> | undefined;
  /** Waiting frames' bytes, bookkeeping included. */
  #pendingBytes = 0;
  /** Writes made while Node's buffer was not empty: each costs bookkeeping until it drains. */
  #writesBuffered = 0;
  #held = 0;
  /** Shared frames written to this stream whose last write Node has not completed yet; duplicates allowed. */
  #shared: SharedFrame[] | undefined;
  /** Their bytes (head and tail), as this stream's cap counts them. */
  #sharedBytes = 0;
  /** The part of `#held` that is shared bytes, counted in the budget once for all streams. */
  #sharedHeld = 0;
  /** What this stream counts against the budget: `#held` less `#sharedHeld`. */
  #charged = 0;
  #endAfterFlush = false;
  #done = false;
  /** The most bytes this stream ever held (accounted as above); for tests and metrics. */
  peakBufferedBytes = 0;
  /** Frames dropped because an identical one was already waiting. */
  coalescedFrames = 0;
  /** Why the writer ended the stream, when the client did not keep up. */
  eviction: Eviction | undefined;

  constructor(res: ServerResponse, options: SseOptions = {}) {
    this.#res = res;
    this.#highWater = options.highWaterBytes ?? DEFAULT_HIGH_WATER_BYTES;
    this.#maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.#maxStalledMs = options.maxStalledMs ?? DEFAULT_MAX_STALLED_MS;
    this.#budget = options.budget;
    // No flushHeaders: the writer exists because a frame is about to be written, and the
    // headers travel with it.
    res.writeHead(200, SSE_HEADERS);
    this.#nodeHighWater = res.writableHighWaterMark;
    // Per-stream closures are the cheap kind: one inline arrow, the rest static methods.
    this.#onDrain = () => this.#drained();
    res.on("drain", this.#onDrain);
    const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    if (keepAliveMs > 0) (this.#keepAlive = keepAliveGroup(keepAliveMs)).add(this);
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
    return this.#held;
  }

  get chargedBytes(): number {
    return this.#charged;
  }

  /** Writes (or queues) one frame; returns false when the stream is over. */
  write(frame: string): boolean {
    if (this.done) return false;
    if (!this.#inTurn && !this.#startTurn()) return false;
    if (!this.#congested) {
      // Checked exactly only near the cap: a UTF-8 byte is at most 3 UTF-16 units.
      const room = this.#maxBuffered - this.#held - BUFFERED_WRITE_OVERHEAD;
      if (3 * (this.#batch.length + frame.length) > room && Buffer.byteLength(this.#batch + frame) > room) return this.evict("stream-cap");
      this.#batch += frame;
      return true;
    }
    const pending = (this.#pending ??= new Set());
    if (pending.has(frame)) {
      this.coalescedFrames++;
      return true;
    }
    const size = Buffer.byteLength(frame) + PENDING_FRAME_OVERHEAD;
    if (this.#held + size > this.#maxBuffered) return this.evict("stream-cap");
    pending.add(frame);
    this.#pendingBytes += size;
    this.#setHeld(this.#held + size); // may evict this stream to keep the budget
    return !this.done;
  }

  /**
   * Writes one large frame as its shared bytes around `idJson` (see SharedFrame): after
   * this turn's earlier frames, in three writes of their own. A congested stream queues it
   * as text (`json`) like any frame. Returns false when the stream is over.
   *
   * The shared bytes are one buffer in memory however many streams write it: this stream's
   * cap counts them whole, the server-wide budget once for all streams, from the first
   * write until the last stream's write of them completed (or the stream ended).
   */
  writeShared(frame: SharedFrame, idJson: string, json: string): boolean {
    if (this.done) return false;
    if (!this.#inTurn && !this.#startTurn()) return false;
    if (this.#congested) return this.write(sseFrame(json));
    this.#flushBatch();
    const size = frame.head.length + 3 * idJson.length + frame.tail.length + 3 * BUFFERED_WRITE_OVERHEAD;
    if (this.#held + size > this.#maxBuffered) return this.evict("stream-cap");
    const sharedBytes = frame.head.length + frame.tail.length;
    (this.#shared ??= []).push(frame);
    this.#sharedBytes += sharedBytes;
    this.#budget?.holdShared(frame, sharedBytes); // may evict congested streams, this one among them
    if (this.done) return false;
    const res = this.#res;
    const socket = res.socket;
    socket?.cork(); // the three go out together, now (see #write)
    res.write(frame.head);
    res.write(idJson);
    const accepted = res.write(frame.tail, () => this.#releaseShared(frame));
    socket?.uncork();
    if (!accepted && this.#stalledSince === 0) this.#stall();
    const buffered = res.writableLength;
    if (buffered > 0) this.#writesBuffered += 3;
    this.#account(buffered);
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
    this.#unstall();
    this.#keepAlive?.delete(this);
    this.#keepAlive = undefined;
    this.#res.off("drain", this.#onDrain);
    this.#batch = "";
    this.#pending = undefined;
    this.#pendingBytes = 0;
    this.#budget?.setCongested(this, false);
    this.#budget?.charge(-this.#charged);
    for (const frame of this.#shared ?? []) this.#budget?.releaseShared(frame);
    this.#shared = undefined;
    this.#sharedBytes = this.#sharedHeld = this.#charged = this.#held = 0;
  }

  /** Node completed this stream's write of a shared frame: the bytes left its buffers. */
  #releaseShared(frame: SharedFrame): void {
    const shared = this.#shared;
    if (this.#done || shared === undefined) return; // ended: #finish released them all
    shared.splice(shared.indexOf(frame), 1);
    if (shared.length === 0) this.#shared = undefined;
    this.#sharedBytes -= frame.head.length + frame.tail.length;
    this.#budget?.releaseShared(frame);
    this.#account(this.#res.writableLength);
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
    if (SseWriter.#turn.push(this) === 1) process.nextTick(SseWriter.#endTurn);
    const buffered = this.#res.writableLength;
    this.#account(buffered);
    const congested = this.#pending !== undefined || buffered > this.#highWater;
    this.#congested = congested;
    return !this.#evictIfStalled(this.#stalledSince === 0 ? 0 : Date.now());
  }

  /** Evicts the stream when it has been stalled longer than maxStalledMs at `now`; true when it did. */
  #evictIfStalled(now: number): boolean {
    if (this.#stalledSince === 0 || this.#maxStalledMs <= 0 || now - this.#stalledSince <= this.#maxStalledMs) return false;
    this.evict("stalled");
    return true;
  }

  /** A write was refused: the stall clock starts, and the shared watch checks it from now on. */
  #stall(): void {
    this.#stalledSince = Date.now();
    if (this.#maxStalledMs > 0) stallWatch(this.#maxStalledMs).add(this);
  }

  #unstall(): void {
    if (this.#stalledSince === 0) return;
    this.#stalledSince = 0;
    if (this.#maxStalledMs > 0) stallWatch(this.#maxStalledMs).delete(this);
  }

  /** For the stall watch's timer (module-internal). */
  static checkStall(writer: SseWriter, now: number): void {
    writer.#evictIfStalled(now);
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
   * One write to the response, then the held bytes accounted again. Corked around the
   * write, the response's chunk goes to the socket now, in one writev: uncorked, Node
   * corks it itself and queues a tick per response to send it.
   */
  #write(text: string): void {
    const res = this.#res;
    const socket = res.socket;
    socket?.cork();
    const accepted = res.write(text);
    socket?.uncork();
    if (!accepted && this.#stalledSince === 0) this.#stall();
    const buffered = res.writableLength;
    if (buffered > 0) this.#writesBuffered++;
    this.#account(buffered);
  }

  /**
   * Recounts what this stream holds from Node's buffer (`buffered`, its writableLength) and
   * the waiting frames. Of Node's buffer, shared bytes still unwritten (at most what it
   * holds) are the shared part.
   */
  #account(buffered: number): void {
    if (buffered === 0) this.#writesBuffered = 0;
    const sharedHeld = this.#sharedBytes === 0 ? 0 : Math.min(this.#sharedBytes, buffered);
    this.#setHeld(buffered + this.#pendingBytes + BUFFERED_WRITE_OVERHEAD * this.#writesBuffered, sharedHeld);
  }

  #setHeld(held: number, sharedHeld = this.#sharedHeld): void {
    if (held === this.#held && sharedHeld === this.#sharedHeld) return;
    this.#held = held;
    this.#sharedHeld = sharedHeld;
    if (held > this.peakBufferedBytes) this.peakBufferedBytes = held;
    if (this.#budget === undefined) return;
    // Holding more than Node's own high-water mark for the socket (where `write` starts
    // returning false), the client has not taken what it was sent: an eviction candidate,
    // marked before the charge so that a stream pushing the total over can go. Not our
    // higher `highWaterBytes`: 256 streams just under it would already fill the budget.
    const candidate = held > this.#nodeHighWater;
    if (candidate !== this.#candidate) this.#budget.setCongested(this, (this.#candidate = candidate));
    const charged = held - sharedHeld;
    const delta = charged - this.#charged;
    this.#charged = charged;
    if (delta !== 0) this.#budget.charge(delta);
  }

  #drained(): void {
    if (this.done) return;
    this.#unstall(); // the client took everything Node held: not stalled, whatever comes next
    this.#writesBuffered = 0;
    const pending = this.#pending;
    // Refill up to the high-water mark, in one write; the rest waits for the next drain.
    let refill = "";
    if (pending !== undefined) {
      const room = this.#highWater - this.#res.writableLength;
      for (const frame of pending) {
        if (refill.length >= room) break;
        refill += frame;
        pending.delete(frame);
        this.#pendingBytes -= Buffer.byteLength(frame) + PENDING_FRAME_OVERHEAD;
      }
      if (pending.size === 0) this.#pending = undefined;
    }
    if (refill.length > 0) this.#write(refill);
    else this.#account(this.#res.writableLength);
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

/**
 * One keep-alive timer per interval for all streams, not one per stream: a timer costs
 * more than a Set entry, and 10,000 streams share one. The timer stops with its last
 * stream. Not unref'd: the open sockets keep the process alive anyway, and a ref'd timer
 * is visible to leak checks (process.getActiveResourcesInfo).
 */
class KeepAliveGroup {
  readonly #writers = new Set<SseWriter>();
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly intervalMs: number) {}

  add(writer: SseWriter): void {
    this.#writers.add(writer);
    this.#timer ??= setInterval(() => {
      for (const member of this.#writers) member.sendKeepAlive();
    }, this.intervalMs);
  }

  delete(writer: SseWriter): void {
    this.#writers.delete(writer);
    if (this.#writers.size > 0 || this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

const keepAliveGroups = new Map<number, KeepAliveGroup>();

function keepAliveGroup(intervalMs: number): KeepAliveGroup {
  let group = keepAliveGroups.get(intervalMs);
  if (group === undefined) keepAliveGroups.set(intervalMs, (group = new KeepAliveGroup(intervalMs)));
  return group;
}

/**
 * One timer per stall time for the streams currently stalled (none for the rest): it ends
 * a stalled stream on time even when nothing more is written to it. It checks four times
 * per stall time (at most once a second, at least every 10 ms), so an eviction comes at
 * most a quarter of maxStalledMs late (a second at most). Stops with its last stream.
 */
class StallWatch {
  readonly #writers = new Set<SseWriter>();
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly maxStalledMs: number) {}

  add(writer: SseWriter): void {
    this.#writers.add(writer);
    this.#timer ??= setInterval(
      () => {
        const now = Date.now();
        for (const member of this.#writers) SseWriter.checkStall(member, now); // an eviction leaves the set: safe while iterating
      },
      Math.min(1000, Math.max(10, Math.floor(this.maxStalledMs / 4))),
    );
  }

  delete(writer: SseWriter): void {
    this.#writers.delete(writer);
    if (this.#writers.size > 0 || this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

const stallWatches = new Map<number, StallWatch>();

function stallWatch(maxStalledMs: number): StallWatch {
  let watch = stallWatches.get(maxStalledMs);
  if (watch === undefined) stallWatches.set(maxStalledMs, (watch = new StallWatch(maxStalledMs)));
  return watch;
}

/**
 * The bytes of an SSE stream: its response headers, one frame per JSON-RPC message, and the
 * shared bytes of a large frame fanned out to many streams.
 */
import type { SharedText } from "../transport.js";
import { utf8Length } from "./http-io.js";

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

/** One HTTP/1.1 chunk of a chunked response body carrying `text`. */
export function httpChunk(text: string): string {
  return `${utf8Length(text).toString(16)}\r\n${text}\r\n`;
}

/**
 * Text at least this long that every stream of a fan-out shares (all but the id) is
 * written as shared bytes: a string write would copy it for each stream (and flatten it in
 * the heap first), 128 MB for a 128 KB update to 1,000 streams.
 */
export const SHARED_FRAME_MIN_CHARS = 16 * 1024;

/** A frame's bytes around the id, encoded once for every stream of a fan-out. */
export interface SharedFrame {
  readonly head: Uint8Array;
  readonly tail: Uint8Array;
  /** head and tail together. */
  readonly bytes: number;
}

const sharedFrames = new WeakMap<SharedText, SharedFrame>();
const encoder = new TextEncoder();

/** The shared bytes of the frames made from `text` (kept while `text` is). */
export function sharedFrame(text: SharedText): SharedFrame {
  let frame = sharedFrames.get(text);
  if (frame === undefined) {
    const head = encoder.encode(`event: message\ndata: ${text.before}`);
    const tail = encoder.encode(`${text.after}\n\n`);
    frame = { head, tail, bytes: head.length + tail.length };
    sharedFrames.set(text, frame);
  }
  return frame;
}

/**
 * The two faces of one HTTP request that the Streamable HTTP core (http-core.ts) works on,
 * whatever server carries it: `HttpRequest` (method, headers, peer, body) and `HttpResponse`
 * (status and headers, then text written as it comes, with backpressure). Node's
 * `ServerResponse` is an `HttpResponse` as it is (the node adapter adds nothing per
 * response); `FetchResponse` (http-fetch.ts) is one over a web `ReadableStream`.
 *
 * Nothing here imports a `node:` module: the fetch path runs on Bun, Deno and Workers.
 */
import type { ParsedBody, BodyLimits, HttpRejection } from "./http-body.js";

/** Where request headers are read from: a web `Headers`, or the node adapter's view of `req.headers`. */
export interface HeaderSource {
  /** The header's value (repeated headers joined with ", "), null or undefined when absent. Names are lower case. */
  get(name: string): string | null | undefined;
}

/** One request as the core sees it. */
export interface HttpRequest {
  /** The HTTP verb, upper case. */
  readonly method: string;
  /** The URL path, without the query. */
  readonly path: string;
  /** One parameter of the URL's query, decoded; undefined when it is absent. */
  query(name: string): string | undefined;
  readonly headers: HeaderSource;
  /**
   * The peer's address, when the server knows it: the client's, the key of per-client limits
   * when no principal is known, unless the peer is a trusted proxy (`trustedProxies`).
   */
  readonly remoteAddress: string | undefined;
  /** What identifies the connection the request came on (a socket), for the same keys when there is no address. */
  readonly connection: object;
  /** Reads the whole body within `limits` and decodes it as one JSON-RPC message, or says why not. */
  readMessage(limits: BodyLimits): Promise<ParsedBody | HttpRejection>;
  /** Answers with `rejection`, the body unread or refused: what is left of it is dropped (bounded in time). */
  refuse(response: HttpResponse, rejection: HttpRejection): void;
}

/** The socket under a node response: the SSE writer writes whole chunks to it (http-sse.ts). */
export interface HttpSocket {
  readonly writable: boolean;
  readonly writableLength: number;
  cork(): void;
  uncork(): void;
  write(chunk: string): boolean;
  on(event: "drain", listener: () => void): unknown;
  off(event: "drain", listener: () => void): unknown;
}

export type HttpResponseEvent = "close" | "drain";

/**
 * One response as the core writes it: the part of Node's `ServerResponse` it uses. `close`
 * comes once, when the response is over (ended, or cut by either side); `drain` once what it
 * holds fell under its high-water mark after a `write` returned false.
 */
export interface HttpResponse {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
  /** Everything written was handed on (an end, not a cut). */
  readonly writableFinished: boolean;
  /** Bytes written and not yet taken by the peer's side. */
  readonly writableLength: number;
  readonly writableHighWaterMark: number;
  /** The node socket, when there is one (a fetch response has none). */
  readonly socket: HttpSocket | null;
  writeHead(status: number, headers?: Readonly<Record<string, string | number>>): unknown;
  setHeader(name: string, value: string): unknown;
  write(chunk: string | Uint8Array): boolean;
  end(chunk?: string): unknown;
  destroy(): unknown;
  on(event: HttpResponseEvent, listener: () => void): unknown;
  once(event: HttpResponseEvent, listener: () => void): unknown;
  off(event: HttpResponseEvent, listener: () => void): unknown;
}

/**
 * A timer that does not keep the process alive, where timers can be unref'd (Node, Bun,
 * Deno); elsewhere (Workers, whose timers are numbers) the timer as it is.
 */
export function unrefTimer<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

/** Runs a callback once the current step is done: Node's nextTick, or a microtask where there is no `process` (Workers). */
export const afterThisStep: (callback: () => void) => void =
  typeof process === "object" && typeof process.nextTick === "function" ? process.nextTick : queueMicrotask;

const encoder = new TextEncoder();

/** UTF-8 length of `text` without encoding it where Node's Buffer can count (the fast path), else by encoding. */
export const utf8Length: (text: string) => number = typeof Buffer === "function" ? (text) => Buffer.byteLength(text) : (text) => encoder.encode(text).length;

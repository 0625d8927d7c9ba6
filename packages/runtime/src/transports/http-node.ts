/**
 * The node:http side of the Streamable HTTP core: a Node request as an `HttpRequest`
 * (`NodeRequest`), its body read within the handler's `BodyLimits`, and a refused body
 * drained so the refusal reaches the client. The response needs no adapter: a
 * `ServerResponse` is an `HttpResponse` (http-io.ts) as it is.
 */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { HeaderSource, HttpRequest, HttpResponse } from "./http-io.js";
import { proxiedAddress } from "./http-proxy-protocol.js";
import {
  BODY_DISCARD_MS,
  overBudget,
  parseBody,
  tooLarge,
  tooSlow,
  writeRejection,
  writeRejectionHead,
  type BodyLimits,
  type HttpRejection,
  type ParsedBody,
} from "./http-request.js";
import { TimerGroups } from "./timer-group.js";

/** One Node request as the core reads it: one small object per request, its methods on the prototype. */
export class NodeRequest implements HttpRequest, HeaderSource {
  readonly #headers: IncomingHttpHeaders;

  constructor(readonly req: IncomingMessage) {
    this.#headers = req.headers;
  }

  get method(): string {
    return this.req.method ?? "GET";
  }

  /** The request is its own header source: `get` reads Node's parsed headers. */
  get path(): string {
    const url = this.req.url ?? "/";
    const query = url.indexOf("?");
    return query < 0 ? url : url.slice(0, query);
  }

  query(name: string): string | undefined {
    const url = this.req.url ?? "";
    const query = url.indexOf("?");
    return query < 0 ? undefined : (new URLSearchParams(url.slice(query + 1)).get(name) ?? undefined);
  }

  get headers(): HeaderSource {
    return this;
  }

  get(name: string): string | undefined {
    const value = this.#headers[name];
    return Array.isArray(value) ? value.join(", ") : value;
  }

  /** The peer, or the client its PROXY protocol header named (`serveHttp`'s `proxyProtocol`). */
  get remoteAddress(): string | undefined {
    return proxiedAddress(this.req.socket) ?? this.req.socket.remoteAddress;
  }

  get connection(): object {
    return this.req.socket;
  }

  readMessage(limits: BodyLimits): Promise<ParsedBody | HttpRejection> {
    return readMessage(this.req, limits);
  }

  refuse(response: HttpResponse, rejection: HttpRejection): void {
    refuseBody(this.req, response, rejection);
  }
}

/**
 * Reads the whole body and decodes it (parseBody), refusing as soon as it would break one
 * of `limits`: over `maxBodyBytes` (413; a declared Content-Length over it before a byte is
 * read, a chunked body as soon as it crosses it), over what the shared budget has left
 * (503 with Retry-After; its bytes go back to the budget at once), or not ended within
 * `bodyTimeoutMs` (408, its connection closed). The refused body is never parsed; the
 * caller answers with `refuseBody`, which drops the rest of it. One promise per body: the
 * decoding happens in the reader, not in an async step after it.
 */
export function readMessage(req: IncomingMessage, limits: BodyLimits): Promise<ParsedBody | HttpRejection> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limits.maxBodyBytes) return Promise.resolve(tooLarge(limits.maxBodyBytes));
  if (Number.isFinite(declared) && limits.held + declared > limits.maxTotalBodyBytes) return Promise.resolve(overBudget(limits));
  return new Promise((resolve, reject) => {
    const read: BodyRead = { req: req as ReadingRequest, chunks: [], size: 0, limits, started: Date.now(), resolve, reject };
    (req as ReadingRequest)[BODY] = read;
    // No per-body timer: one sweep per deadline checks every body being read (most end within the turn).
    bodyDeadlines.for(limits.bodyTimeoutMs).add(read);
    req.on("data", onBodyData);
    req.on("end", onBodyEnd);
    // No "error" listener: a request emits "error" only to listeners, and "close" follows either way.
    req.on("close", onBodyClose);
  });
}

/**
 * A body being read, kept on its request: the listeners are module functions (`this` is
 * the request), so reading a body makes no closure per request.
 */
const BODY = Symbol("body");
interface BodyRead {
  readonly req: ReadingRequest;
  readonly chunks: Buffer[];
  /** Bytes received, all of them taken from the budget. */
  size: number;
  readonly limits: BodyLimits;
  /** When its reading started (Date.now()), for the deadline sweep. */
  readonly started: number;
  resolve(body: ParsedBody | HttpRejection): void;
  reject(error: Error): void;
}
type ReadingRequest = IncomingMessage & { [BODY]?: BodyRead | undefined };

function onBodyData(this: ReadingRequest, chunk: Buffer): void {
  const read = this[BODY]!;
  if (read.size + chunk.length > read.limits.maxBodyBytes) return refuseRead(this, read, tooLarge(read.limits.maxBodyBytes));
  if (!read.limits.take(chunk.length)) return refuseRead(this, read, overBudget(read.limits));
  read.size += chunk.length;
  read.chunks.push(chunk);
}

function onBodyEnd(this: ReadingRequest): void {
  const read = this[BODY]!;
  stopReading(this, read);
  const { chunks, size } = read;
  read.resolve(parseBody((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString("utf8")));
}

/** The request closed before its body ended (the client went away): its bytes go back. */
function onBodyClose(this: ReadingRequest): void {
  const read = this[BODY];
  if (read === undefined) return;
  stopReading(this, read);
  read.reject(new Error("the request closed before its body ended"));
}

/** Refuses a body still being read past its deadline. */
function checkDeadline(read: BodyRead, now: number): void {
  if (now - read.started >= read.limits.bodyTimeoutMs && read.req[BODY] === read) refuseRead(read.req, read, tooSlow(read.limits));
}

/**
 * One sweep per body deadline for the bodies being read, lingering a beat after the last
 * (POSTs one after another reuse its timer; none runs for long while no body is read): it checks
 * twenty times per deadline (at least every 10 ms, at most every second), so a 408 comes at
 * most a twentieth of `bodyTimeoutMs` (a second at most) late.
 */
const bodyDeadlines = new TimerGroups<BodyRead>((timeoutMs) => Math.min(1000, Math.max(10, Math.floor(timeoutMs / 20))), checkDeadline, true);

/** Ends a read with `rejection`: what it buffered is dropped and given back to the budget. */
function refuseRead(req: ReadingRequest, read: BodyRead, rejection: HttpRejection): void {
  stopReading(req, read);
  read.chunks.length = 0;
  read.resolve(rejection);
}

function stopReading(req: ReadingRequest, read: BodyRead): void {
  bodyDeadlines.for(read.limits.bodyTimeoutMs).delete(read);
  read.limits.give(read.size);
  req.off("data", onBodyData);
  req.off("end", onBodyEnd);
  req.off("close", onBodyClose);
  req[BODY] = undefined;
}

/**
 * Answers a request whose body is refused, or not read, with `rejection`. The rest of the
 * body is read and dropped (never buffered), so that the refusal reaches the client: a
 * socket closed with unread data answers with a reset, which makes the client lose the
 * response. The answer is written at once but ended only when the body has ended: once a
 * response ends, Node closes a `Connection: close` socket, with the body still coming. A
 * body still coming after `ms` has its connection closed.
 */
export function refuseBody(req: IncomingMessage, res: HttpResponse, rejection: HttpRejection, ms = BODY_DISCARD_MS): void {
  if (req.complete || req.readableEnded) return writeRejection(res, rejection); // Node drops what it holds of a complete body
  const text = writeRejectionHead(res, rejection);
  res.write(text);
  const timer = setTimeout(() => req.socket.destroy(), ms);
  timer.unref();
  req.once("end", () => {
    clearTimeout(timer);
    res.end();
  });
  req.once("close", () => clearTimeout(timer));
  req.resume();
}

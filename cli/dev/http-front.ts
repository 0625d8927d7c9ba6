/**
 * The address `mcp-gen dev --http` serves: it stays while the server behind it is replaced
 * on each successful build. Each request goes to the server running now; one that arrives
 * while none is (starting, reloading) waits for the next, bounded in count and time. A
 * 2026-07-28 client's listen stream is held here and opened again on each new server
 * (http-listen.ts), so the client keeps it. Everything else passes through as it is: a
 * 2025-11-25 session outlives a reload through the project's own session store, its GET
 * stream reconnecting with Last-Event-ID as after any server's restart.
 */
import { createServer, request as upstreamRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { CarriedListen } from "./http-listen.js";
import { LISTEN_METHOD } from "./session-memory.js";

export interface FrontLimits {
  /** Requests waiting at once for a server to start. */
  maxWaiting: number;
  /** How long one request waits for a server before it is refused. */
  waitMs: number;
  /** Listen streams held across reloads. */
  maxListens: number;
  /** The largest listen request held to be sent again. */
  maxListenBodyBytes: number;
  /** How often a held listen stream gets a keep-alive comment. */
  keepAliveMs: number;
}

export const DEFAULT_FRONT_LIMITS: FrontLimits = { maxWaiting: 1024, waitMs: 30_000, maxListens: 1024, maxListenBodyBytes: 1024 * 1024, keepAliveMs: 15_000 };

const RETRY_AFTER_SECONDS = "1";

export class DevFront {
  readonly server: Server;
  #upstream: URL | undefined;
  /** Starting and reloading, requests wait for the next server; down, they are refused. */
  #state: "starting" | "serving" | "reloading" | "down" = "starting";
  #downReason = "";
  readonly #waiters = new Set<(url: URL | undefined) => void>();
  readonly #listens = new Set<CarriedListen>();

  constructor(readonly limits: FrontLimits = DEFAULT_FRONT_LIMITS) {
    this.server = createServer((req, res) => void this.#handle(req, res));
  }

  /** A server serves at `url` now: waiting requests go to it, held listen streams are opened on it. */
  serve(url: URL): void {
    this.#upstream = url;
    this.#state = "serving";
    for (const wake of this.#waiters) wake(url);
    this.#waiters.clear();
    for (const listen of this.#listens) if (!listen.open) void this.#carry(listen, url);
  }

  /** The server is about to be replaced: requests wait for the next, listen streams let go of this one. */
  reload(): void {
    this.#upstream = undefined;
    this.#state = "reloading";
    for (const listen of this.#listens) listen.detach();
  }

  /** No server runs until the next successful build: requests are refused meanwhile; listen streams wait. */
  down(why: string): void {
    this.#upstream = undefined;
    this.#state = "down";
    this.#downReason = why;
    for (const wake of this.#waiters) wake(undefined);
    this.#waiters.clear();
  }

  close(): void {
    for (const listen of this.#listens) listen.client.destroy();
    this.server.closeAllConnections();
    this.server.close();
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = this.#upstream ?? (await this.#nextServer());
    if (typeof url === "string") return refuse(res, 503, `mcp-gen dev: ${url}; send the request again once a server runs`);
    if (req.method === "POST" && req.headers["mcp-method"] === LISTEN_METHOD) return this.#takeListen(req, res);
    this.#pass(req, res, url);
  }

  /** Waits for the next server, bounded: its URL, or why the request cannot wait for one. */
  #nextServer(): Promise<URL | string> {
    if (this.#state === "down") return Promise.resolve(this.#downReason);
    if (this.#waiters.size >= this.limits.maxWaiting) return Promise.resolve(`too many requests (${this.limits.maxWaiting}) wait for the server to start`);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(wake);
        resolve(`no server started within ${this.limits.waitMs} ms`);
      }, this.limits.waitMs);
      const wake = (url: URL | undefined) => {
        clearTimeout(timer);
        resolve(url ?? this.#downReason);
      };
      this.#waiters.add(wake);
    });
  }

  async #takeListen(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.#listens.size >= this.limits.maxListens) {
      return refuse(res, 503, `mcp-gen dev holds at most ${this.limits.maxListens} listen streams`);
    }
    const body = await readBody(req, this.limits.maxListenBodyBytes);
    if (body === undefined) return refuse(res, 413, `mcp-gen dev holds listen requests of at most ${this.limits.maxListenBodyBytes} bytes`);
    if (res.destroyed) return; // the client left while its request was read
    const listen = new CarriedListen(body, req.headers, res, (ended) => this.#listens.delete(ended), this.limits.keepAliveMs);
    this.#listens.add(listen);
    // A reload begun while the request was read: serve() opens it on the next server.
    if (this.#upstream !== undefined) void this.#carry(listen, this.#upstream);
  }

  /**
   * Relays the stream from the server at `url`. Cut while that server no longer serves (a
   * reload, or its exit), it goes to the server serving now, or waits for serve(); cut by a
   * server still serving, it ends for the client.
   */
  async #carry(listen: CarriedListen, url: URL): Promise<void> {
    if (!(await listen.openOn(url)) || listen.open) return; // ended, or serve() took it to the next server already
    const now = this.#state === "serving" ? this.#upstream : undefined;
    if (now?.href === url.href) return listen.end();
    if (now !== undefined) await this.#carry(listen, now);
  }

  /** Any other request, streamed both ways as it is. */
  #pass(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const forwarded = upstreamRequest({ host: url.hostname, port: url.port, method: req.method, path: req.url, headers: { ...req.headers, host: url.host } }, (response) => {
      res.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(res);
      // A server killed mid-answer leaves its response incomplete: the client's is cut too, never left hanging.
      response.once("close", () => {
        if (!response.complete) res.destroy();
      });
    });
    forwarded.on("error", () => {
      if (!res.headersSent) refuse(res, 502, "mcp-gen dev: the server went away while answering (a reload?); send the request again");
      else res.destroy();
    });
    res.once("close", () => {
      if (!res.writableFinished) forwarded.destroy();
    });
    req.pipe(forwarded);
  }
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "retry-after": RETRY_AFTER_SECONDS });
  res.end(`${message}\n`);
}

/** The request body as text, or undefined past `maxBytes`. */
async function readBody(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

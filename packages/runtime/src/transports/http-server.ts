/**
 * Streamable HTTP on node:http: `createHttpHandler` returns a plain `(req, res)` handler, so
 * it mounts inside any existing `node:http` server (or a framework that exposes Node's
 * request and response); `serveHttp` is the stand-alone server, bound to 127.0.0.1 unless
 * told otherwise. Both are the node adapter of the one core (http-core.ts): a request is
 * wrapped as a `NodeRequest` (http-node.ts), the response goes in as it is.
 */
import type { IncomingMessage, Server as NodeHttpServer, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpCore, type ConnectableServer, type HttpEndpointOptions } from "./http-core.js";
import { NodeRequest } from "./http-node.js";
import { PROXY_HEADER_TIMEOUT_MS, readProxyHeaders, type ProxyHeaderGate } from "./http-proxy-protocol.js";
import { isLocalhostOrigin } from "./http-request.js";
import { trustedPeers } from "./trusted-proxies.js";

export { HttpAuthError, type ConnectableServer } from "./http-core.js";

export interface HttpHandlerOptions extends HttpEndpointOptions {
  /**
   * Authenticates a request before its body is read. The value returned becomes
   * `principal` in the message context, which the server merges into `channel.meta` and
   * the request context; throw `HttpAuthError` to refuse.
   */
  readonly authenticate?: (req: IncomingMessage) => unknown | Promise<unknown>;
}

export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** A request handler serving `server` over Streamable HTTP. */
export function createHttpHandler(server: ConnectableServer, options: HttpHandlerOptions = {}): HttpHandler {
  return nodeHandler(server, options, undefined);
}

function nodeHandler(server: ConnectableServer, options: HttpHandlerOptions, endpointPath: string | undefined): HttpHandler {
  const hook = options.authenticate;
  const core = createHttpCore(server, {
    ...options,
    endpointPath,
    authenticate: hook === undefined ? undefined : (request) => hook((request as NodeRequest).req),
  });
  return (req, res) => core.handle(new NodeRequest(req), res);
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

export interface ServeHttpOptions extends HttpHandlerOptions {
  /** Interface to bind. Default 127.0.0.1: reachable from this machine only. */
  readonly host?: string;
  /** Port; 0 (default) picks a free one. */
  readonly port?: number;
  /** The MCP endpoint path. Default `/mcp`. */
  readonly path?: string;
  /**
   * Whether this process should be sent work, asked by each GET /readyz (200 when true, else
   * 503), e.g. false while a broker it needs is out of reach. Default: always; `drain()` makes
   * /readyz 503 whatever this says.
   */
  readonly ready?: () => boolean;
  /**
   * Whether connections from `trustedProxies` start with a PROXY protocol header (v1 or v2, as
   * HAProxy's `send-proxy` and `send-proxy-v2` write it), whose client address then keys that
   * connection's per-client shares. A trusted peer's connection without a valid header within
   * `proxyHeaderTimeoutMs` is closed; from any other peer no header is read. Needs
   * `trustedProxies`. Default false.
   */
  readonly proxyProtocol?: boolean;
  /** Time a trusted peer's connection may take to send its PROXY protocol header. Default 5 s. */
  readonly proxyHeaderTimeoutMs?: number;
  /**
   * How long a connection may wait idle for its next request before the server closes it
   * (node:http's `keepAliveTimeout`, whose own default is 5 s). Default 65 s: see
   * `DEFAULT_KEEP_ALIVE_MS`.
   */
  readonly keepAliveTimeoutMs?: number;
  /**
   * What this process serves without right now, asked by each GET /readyz that finds it ready
   * (e.g. `["redis"]` while its broker is out of reach): a process that still serves discover
   * and lists stays in the balancer, so /readyz stays 200 and its body names each part.
   * Default: nothing.
   */
  readonly degraded?: () => readonly string[];
}

/**
 * The idle keep-alive time unless told otherwise. A balancer reuses its idle connections to
 * the server for later requests, so the server must not be the one to close an idle
 * connection first: a close landing as the balancer sends a request on it fails that request
 * (the client sees a reset). node:http's 5 s is the very interval at which HAProxy purges its
 * idle server connections (`pool-purge-delay`) and far below the README recipe's 30 s
 * `timeout http-request`; 65 s is past both, and past the 60 s idle timeout of common cloud
 * balancers. node:http counts `headersTimeout` (60 s) from a request's first byte, not from
 * the idle wait before it, so it needs no change beside this.
 */
const DEFAULT_KEEP_ALIVE_MS = 65_000;

/** Liveness: 200 while the process serves HTTP at all. */
export const HEALTH_PATH = "/healthz";
/** Readiness: 200 while the process takes new work; a balancer's health check reads it. */
export const READY_PATH = "/readyz";

export interface HttpServerHandle {
  /** The endpoint URL, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  readonly port: number;
  readonly httpServer: NodeHttpServer;
  /**
   * The first step of a graceful stop: from now on /readyz answers 503 and every response asks
   * its client to close the connection, while requests are still served, so that a balancer
   * checking /readyz moves new work away. Idempotent.
   */
  drain(): void;
  /** Stops listening and drops every open connection (streams see an outside teardown). */
  close(): Promise<void>;
}

/** Serves `server` on its own `node:http` server; resolves once it is listening. */
export async function serveHttp(server: ConnectableServer, options: ServeHttpOptions = {}): Promise<HttpServerHandle> {
  // Loaded here, not at the top: the rest of the runtime (the fetch path) runs where node:http does not exist.
  const { createServer } = await import("node:http");
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  // Browsers on this machine may call a server bound to this machine; bound wider, no
  // browser origin is trusted until the caller lists it.
  const allowedOrigins = options.allowedOrigins ?? (isLoopback(host) ? isLocalhostOrigin : []);
  const handler = nodeHandler(server, { ...options, allowedOrigins }, path);
  let draining = false;
  const ready = options.ready ?? (() => true);
  const httpServer = createServer((req, res) => {
    // Closing the connection after each answer lets a draining process lose its keep-alive clients.
    if (draining) res.shouldKeepAlive = false;
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const requestPath = query < 0 ? url : url.slice(0, query);
    if (requestPath === HEALTH_PATH && path !== HEALTH_PATH) return probe(req, res, true);
    if (requestPath === READY_PATH && path !== READY_PATH) return probe(req, res, !draining && ready(), options.degraded?.());
    handler(req, res); // the endpoint, or 404 naming it
  });
  httpServer.keepAliveTimeout = keepAliveFor(options);
  const headers = proxyHeadersFor(httpServer, options);
  await new Promise<void>((resolve, rejectListen) => {
    httpServer.once("error", rejectListen);
    httpServer.listen(options.port ?? 0, host, () => {
      httpServer.off("error", rejectListen);
      resolve();
    });
  });
  const { port } = httpServer.address() as AddressInfo;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${path}`,
    port,
    httpServer,
    drain: () => void (draining = true),
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
        headers?.close();
      }),
  };
}

/** The idle keep-alive time `options` ask for: a whole number of ms above 0 (0 would keep idle connections forever). */
function keepAliveFor(options: ServeHttpOptions): number {
  const ms = options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_MS;
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new TypeError(`keepAliveTimeoutMs must be a whole number of ms above 0, got ${String(ms)}`);
  return ms;
}

/** The PROXY protocol reading `options` ask for, in front of `httpServer`; none unless asked. */
function proxyHeadersFor(httpServer: NodeHttpServer, options: ServeHttpOptions): ProxyHeaderGate | undefined {
  if (options.proxyProtocol !== true) return undefined;
  // With no trusted peer no header would ever be read: a setting that does nothing is refused, not ignored.
  if (options.trustedProxies === undefined || options.trustedProxies.length === 0) {
    throw new TypeError("proxyProtocol: list the proxies that send the header in trustedProxies");
  }
  return readProxyHeaders(httpServer, {
    trusted: trustedPeers(options.trustedProxies),
    timeoutMs: options.proxyHeaderTimeoutMs ?? PROXY_HEADER_TIMEOUT_MS,
  });
}

/**
 * Answers a probe: 200 "ok" (or "degraded: <parts>" while up without them) or 503 "not ready",
 * never cached; GET and HEAD only.
 */
function probe(req: IncomingMessage, res: ServerResponse, up: boolean, degraded: readonly string[] = []): void {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD" }).end();
    return;
  }
  const body = !up ? "not ready\n" : degraded.length > 0 ? `degraded: ${degraded.join(", ")}\n` : "ok\n";
  res.writeHead(up ? 200 : 503, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", "content-length": Buffer.byteLength(body) });
  res.end(req.method === "HEAD" ? undefined : body);
}

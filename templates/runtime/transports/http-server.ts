/**
 * The server side of Streamable HTTP (2026-07-28): one endpoint, one POST per message, no
 * sessions. The checks every request gets come first (Origin and CORS, verb, a POST's
 * content type, encoding and Accept, authentication, body, MCP headers); then every POST becomes one short-lived transport
 * (`HttpExchange`, http-exchange.ts) that the server core serves with `server.connect`. A
 * legacy (2025-11-25) session's requests go to its session (legacy/http.ts).
 *
 * `createHttpHandler` returns a plain `(req, res)` handler, so it mounts inside any
 * existing `node:http` server (or a framework that exposes Node's request and response);
 * `serveHttp` is the stand-alone server, bound to 127.0.0.1 unless told otherwise.
 */
import { createServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { JsonRpcMessage } from "../jsonrpc.js";
import { errorResponse } from "../jsonrpc.js";
import { ERROR_CODES } from "../protocol.js";
import type { MessageContext, Transport } from "../transport.js";
import {
  BodyLimits,
  checkMcpHeaders,
  checkOrigin,
  checkPostHeaders,
  checkVerb,
  isLocalhostOrigin,
  readMessage,
  refuseBody,
  refuseClientResponse,
  writeRejection,
  type HttpRejection,
  type ParsedBody,
} from "./http-request.js";
import { corsHeaders, preflightHeaders } from "./http-cors.js";
import { HttpExchange, type ExchangeOptions } from "./http-exchange.js";
import { checkParamHeaders, type ParamHeader } from "./param-headers.js";
import type { SseOptions } from "./http-sse.js";
import { SseBudget } from "./sse-budget.js";
import type { LegacyEra } from "../legacy/era.js";
import type { LegacySession } from "../legacy/session.js";
import { LegacyPostExchange } from "../legacy/post-exchange.js";
import { isLegacyInitialize, isLegacyTransportRequest, openHttpSession, serveSessionRequest, SESSION_HEADER, type LegacyHttpExchange } from "../legacy/http.js";

/** What the handler needs of a server: the core's `connect`, called once per POST. */
export interface ConnectableServer {
  connect(transport: Transport): Promise<void>;
  /** Legacy (2025-11-25) sessions, when the server serves them (see legacy/http.ts). */
  readonly legacySessions?: LegacyEra;
  /** A tool's `x-mcp-header` parameters (see param-headers.ts); a server without it gets no Mcp-Param-* check. */
  toolParamHeaders?(name: string): readonly ParamHeader[] | undefined;
  /** The OAuth scopes a request needs (see scopes.ts); a server without it needs none. */
  requiredScopes?(method: string, params: Readonly<Record<string, unknown>> | undefined): readonly string[];
}

/** Thrown by `authenticate` to refuse a request: 401 (or `status`), with an optional challenge and further headers. */
export class HttpAuthError extends Error {
  constructor(
    message: string,
    readonly status = 401,
    readonly challenge?: string,
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = "HttpAuthError";
  }
}

export interface HttpHandlerOptions extends ExchangeOptions {
  /**
   * Budget for all SSE output the handler's streams hold at once (see sse-budget.ts), used
   * when no `budget` is given. Default 64 MiB.
   */
  readonly maxTotalBufferedBytes?: number;
  /** Largest accepted body in bytes; larger is refused with 413 before parsing. Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * Bytes of all request bodies being read at once; a body that would go over is refused
   * with 503 and Retry-After, and what it held is released. Default 8 × `maxBodyBytes`,
   * at least 32 MiB.
   */
  readonly maxTotalBodyBytes?: number;
  /** Time a body may take to arrive, once its reading starts; later, 408 and the connection closes. Default 30 s. */
  readonly bodyTimeoutMs?: number;
  /**
   * Origins a browser may call from: a list, `"*"`, or a predicate. Default: localhost
   * origins only (any port); `serveHttp` bound beyond loopback: none. A request without an
   * Origin header is not a browser's.
   */
  readonly allowedOrigins?: readonly string[] | "*" | ((origin: string) => boolean);
  /**
   * Authenticates a request before its body is read. The value returned becomes
   * `principal` in the message context, which the server merges into `channel.meta` and
   * the request context; throw `HttpAuthError` to refuse.
   */
  readonly authenticate?: (req: IncomingMessage) => unknown | Promise<unknown>;
  /**
   * Checks a request whose tool, prompt or resource declares required scopes
   * (`server.requiredScopes`) against the principal `authenticate` returned, once its body
   * is read; a rejection (403) refuses it before it is served. See http-oauth.ts.
   */
  readonly authorize?: (principal: unknown, requiredScopes: readonly string[]) => HttpRejection | undefined;
}

export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** A request handler serving `server` over Streamable HTTP. */
export function createHttpHandler(server: ConnectableServer, options: HttpHandlerOptions = {}): HttpHandler {
  const allowedOrigins = options.allowedOrigins ?? isLocalhostOrigin;
  const bodies = new BodyLimits(options.maxBodyBytes, options.maxTotalBodyBytes, options.bodyTimeoutMs);
  const onError = options.onError ?? (() => {});
  // One budget for every stream this handler serves.
  const exchangeOptions: HttpHandlerOptions = { ...options, budget: options.budget ?? new SseBudget(options.maxTotalBufferedBytes) };
  const handler: HandlerScope = { server, options: exchangeOptions, bodies };
  return (req, res) => {
    try {
      const served = route(req, res);
      if (served !== undefined) served.catch((error: unknown) => fail(res, error));
    } catch (error) {
      fail(res, error);
    }
  };

  /** A failure with no other place to go: reported, and answered 500 (or the response cut). */
  function fail(res: ServerResponse, error: unknown): void {
    onError(error);
    if (!res.headersSent) writeRejection(res, { status: 500, body: errorResponse(null, ERROR_CODES.InternalError, "Internal error") });
    else res.destroy();
  }

  /**
   * The checks every request gets, synchronous; then the promise of serving it (none when it
   * was answered here). A legacy session's POST goes straight to its session: no async
   * step of its own in between.
   */
  function route(req: IncomingMessage, res: ServerResponse): Promise<void> | void {
    const era = server.legacySessions;
    const sessionId = header(req, SESSION_HEADER);
    const legacy = isLegacyTransportRequest(era, sessionId);
    const origin = header(req, "origin");
    const refused = checkOrigin(origin, allowedOrigins);
    if (refused !== undefined) return writeRejection(res, refused);
    if (origin !== undefined) {
      // An allowed browser origin: its preflight is answered, and every answer names it.
      if (req.method === "OPTIONS") return void res.writeHead(204, preflightHeaders(origin, era?.enabled === true)).end();
      for (const [name, value] of Object.entries(corsHeaders(origin))) res.setHeader(name, value);
    }
    const wrongVerb = legacy ? undefined : checkVerb(req.method);
    if (wrongVerb !== undefined) return writeRejection(res, wrongVerb);
    const unfit = req.method === "POST" ? checkPostHeaders(req.headers) : undefined;
    if (unfit !== undefined) return refuseBody(req, res, unfit);
    if (options.authenticate !== undefined) return authenticated(req, res, options.authenticate, sessionId, legacy);
    return serve(req, res, sessionId, legacy, undefined);
  }

  async function authenticated(
    req: IncomingMessage,
    res: ServerResponse,
    check: NonNullable<HttpHandlerOptions["authenticate"]>,
    sessionId: string | undefined,
    legacy: boolean,
  ): Promise<void> {
    const context = await authenticate(req, check);
    if ("status" in context) return refuseBody(req, res, context);
    return serve(req, res, sessionId, legacy, context.context);
  }

  function serve(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string | undefined,
    legacy: boolean,
    context: MessageContext | undefined,
  ): Promise<void> {
    if (legacy) return serveSessionRequest(server.legacySessions!, new LegacyRequest(req, res, sessionId, context, handler));
    return servePost(req, res, sessionId, context);
  }

  /** A POST outside any legacy session: a 2026-07-28 message, or a legacy `initialize` opening one. */
  async function servePost(req: IncomingMessage, res: ServerResponse, sessionId: string | undefined, context: MessageContext | undefined): Promise<void> {
    const era = server.legacySessions;
    const parsed = await readMessage(req, bodies);
    if ("status" in parsed) return refuseBody(req, res, parsed);
    if (parsed.kind === "response") return writeRejection(res, refuseClientResponse(parsed.message));
    const legacyInitialize = isLegacyInitialize(parsed.message);
    if (legacyInitialize && era?.enabled && parsed.kind === "request")
      return openHttpSession(era, new LegacyRequest(req, res, sessionId, context, handler), parsed.message);
    // A modern-only server's core answers a legacy initialize with the versions it speaks.
    const mismatch = legacyInitialize
      ? undefined
      : (checkMcpHeaders(req.headers, parsed.message) ?? checkParamHeaders(req.headers, parsed.message, server.toolParamHeaders?.bind(server)));
    if (mismatch !== undefined) return writeRejection(res, mismatch);
    const forbidden = checkScopes(handler, context, parsed.message);
    if (forbidden !== undefined) return writeRejection(res, forbidden);
    const exchange = new HttpExchange(res, parsed.message, context, exchangeOptions);
    await server.connect(exchange);
    if (parsed.kind !== "request") {
      // A notification is accepted as soon as the server has it.
      res.writeHead(202).end();
    }
  }
}

async function authenticate(
  req: IncomingMessage,
  check: NonNullable<HttpHandlerOptions["authenticate"]>,
): Promise<{ context?: MessageContext } | HttpRejection> {
  try {
    const principal = await check(req);
    return principal === undefined ? {} : { context: { principal } };
  } catch (error) {
    const status = error instanceof HttpAuthError ? error.status : 401;
    const headers: Record<string, string> =
      error instanceof HttpAuthError ? { ...error.headers, ...(error.challenge ? { "www-authenticate": error.challenge } : {}) } : {};
    const message = error instanceof Error ? error.message : "unauthorized";
    return { status, headers, body: errorResponse(null, ERROR_CODES.InvalidRequestError, message) };
  }
}

/** The `authorize` step: the scopes the message's tool, prompt or resource declares, held to the caller's. */
function checkScopes(handler: HandlerScope, context: MessageContext | undefined, message: JsonRpcMessage): HttpRejection | undefined {
  const authorize = handler.options.authorize;
  if (authorize === undefined || !("method" in message) || handler.server.requiredScopes === undefined) return undefined;
  const params = message.params as Readonly<Record<string, unknown>> | undefined;
  const required = handler.server.requiredScopes(message.method, params);
  return required.length === 0 ? undefined : authorize(context?.["principal"], required);
}

/** What every request of one handler shares. */
interface HandlerScope {
  readonly server: ConnectableServer;
  readonly options: HttpHandlerOptions;
  /** One budget for the bodies of every request this handler reads. */
  readonly bodies: BodyLimits;
}

/** One request handed to the legacy side (legacy/http.ts): one object per request, its methods on the prototype. */
class LegacyRequest implements LegacyHttpExchange {
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly sessionId: string | undefined,
    readonly context: MessageContext | undefined,
    readonly handler: HandlerScope,
  ) {}

  get sse(): SseOptions {
    return this.handler.options;
  }

  reject(rejection: HttpRejection): void {
    refuseBody(this.req, this.res, rejection);
  }

  readMessage(): Promise<ParsedBody | HttpRejection> {
    return readMessage(this.req, this.handler.bodies);
  }

  serve(message: JsonRpcMessage, session: LegacySession): Promise<void> {
    const forbidden = checkScopes(this.handler, this.context, message);
    if (forbidden !== undefined) return Promise.resolve(this.reject(forbidden));
    const era = this.handler.server.legacySessions!;
    return era.host.connect(new LegacyPostExchange(this.res, message, this.context, this.handler.options, session, era), session);
  }
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export interface ServeHttpOptions extends HttpHandlerOptions {
  /** Interface to bind. Default 127.0.0.1: reachable from this machine only. */
  readonly host?: string;
  /** Port; 0 (default) picks a free one. */
  readonly port?: number;
  /** The MCP endpoint path. Default `/mcp`. */
  readonly path?: string;
  /**
   * Answers for paths other than `path`, asked first (the OAuth metadata, see http-oauth.ts):
   * an answer to write, or undefined for a path it does not serve (then 404).
   */
  readonly wellKnown?: (method: string | undefined, path: string) => HttpRejection | undefined;
}

export interface HttpServerHandle {
  /** The endpoint URL, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  readonly port: number;
  readonly httpServer: NodeHttpServer;
  /** Stops listening and drops every open connection (streams see an outside teardown). */
  close(): Promise<void>;
}

/** Serves `server` on its own `node:http` server; resolves once it is listening. */
export async function serveHttp(server: ConnectableServer, options: ServeHttpOptions = {}): Promise<HttpServerHandle> {
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  // Browsers on this machine may call a server bound to this machine; bound wider, no
  // browser origin is trusted until the caller lists it.
  const allowedOrigins = options.allowedOrigins ?? (isLoopback(host) ? isLocalhostOrigin : []);
  const handler = createHttpHandler(server, { ...options, allowedOrigins });
  const httpServer = createServer((req, res) => {
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const requestPath = query < 0 ? url : url.slice(0, query);
    if (requestPath === path) return handler(req, res);
    const answer = options.wellKnown?.(req.method, requestPath);
    if (answer !== undefined) return writeRejection(res, answer);
    writeRejection(res, { status: 404, body: errorResponse(null, ERROR_CODES.InvalidRequestError, `no MCP endpoint at ${requestPath}; use ${path}`) });
  });
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
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      }),
  };
}

/**
 * The Streamable HTTP endpoint (2026-07-28, and 2025-11-25 sessions on the same endpoint),
 * written once over `HttpRequest` / `HttpResponse` (http-io.ts) so that the node:http
 * handler (http-server.ts) and the fetch handler (http-fetch.ts) are two thin adapters of
 * one core. Each request goes through these steps, in order:
 *
 *   1. endpoint: the path (when the adapter serves one path; other paths are 404);
 *   2. Origin and CORS (403, preflight answered);
 *   3. verb, then a POST's content type, encoding and Accept (405, 415, 406);
 *   4. authentication: the `authenticate` hook, before any body byte is read (401/403);
 *   5. a request that is the server's era's (../era.ts: a session it names, an HTTP+SSE
 *      stream a GET opens or a POST to one), classified once when the request enters, is
 *      served by the era; any other POST has its body read within the limits (413, 503,
 *      408), its MCP headers checked (400), and becomes one `HttpExchange` the server core
 *      serves with `server.connect` (or, an `initialize`, opens an era session).
 *
 * A step that refuses answers at once; nothing after it runs.
 */
import type { JsonRpcMessage, RequestId } from "../jsonrpc.js";
import { errorResponse } from "../jsonrpc.js";
import { ERROR_CODES } from "../protocol.js";
import type { MessageContext, Transport } from "../transport.js";
import {
  answerEmpty,
  BodyLimits,
  checkMcpHeaders,
  checkOrigin,
  checkPostHeaders,
  checkVerb,
  isLocalhostOrigin,
  refuseClientResponse,
  writeRejection,
  type HttpRejection,
  type ParsedBody,
} from "./http-request.js";
import { corsHeaders, preflightHeaders } from "./http-cors.js";
import { HttpExchange, type ExchangeOptions } from "./http-exchange.js";
import type { HttpRequest, HttpResponse } from "./http-io.js";
import { checkParamHeaders, type ParamHeader } from "./param-headers.js";
import { SseBudget } from "./sse-budget.js";
import { trustProxies } from "./trusted-proxies.js";
import { isEraInitialize, SESSION_HEADER, type Era, type EraDestination, type EraHttp, type EraHttpExchange } from "../era.js";

/** What the handler needs of a server: the core's `connect`, called once per POST. */
export interface ConnectableServer {
  connect(transport: Transport): Promise<void>;
  /** The era of older clients (2025-11-25 sessions, see ../era.ts), when the server serves one. */
  readonly legacySessions?: Era;
  /** A tool's `x-mcp-header` parameters (see param-headers.ts); a server without it gets no Mcp-Param-* check. */
  toolParamHeaders?(name: string): readonly ParamHeader[] | undefined;
  /** The OAuth scopes a request needs (see scopes.ts); a server without it needs none. */
  requiredScopes?(
    method: string,
    params: Readonly<Record<string, unknown>> | undefined,
    meta?: Readonly<Record<string, unknown>>,
    viewer?: { readonly principal: unknown },
  ): readonly string[];
  /** True once the server is closing: a new POST is answered 503 with Retry-After, for the balancer to send it elsewhere. */
  readonly closed?: boolean;
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

/** The limits and policies of one endpoint, the same for every adapter. */
export interface HttpEndpointOptions extends ExchangeOptions {
  /**
   * Checks a request whose tool, prompt or resource declares required scopes
   * (`server.requiredScopes`) against the principal `authenticate` returned, once its body
   * is read; a rejection (403) refuses it before it is served. See http-oauth.ts.
   */
  readonly authorize?: ((principal: unknown, requiredScopes: readonly string[]) => HttpRejection | undefined) | undefined;
  /**
   * Answers for paths beside the endpoint, asked first (the OAuth metadata, see
   * http-oauth.ts): an answer to write, or undefined for a path it does not serve.
   */
  readonly wellKnown?: ((method: string | undefined, path: string) => HttpRejection | undefined) | undefined;
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
   * Proxies whose word on a client's address is taken: addresses or CIDR blocks, IPv4 or
   * IPv6 (`["10.0.0.0/8", "fd00::/8"]`), parsed once (a bad entry throws, naming it). From
   * such a peer, the client (the key of per-client shares when no principal is known) is the
   * right-most `X-Forwarded-For` address not itself a trusted proxy; from any other peer the
   * header is ignored. Default none: the peer is the client.
   */
  readonly trustedProxies?: readonly string[];
}

/**
 * Step 4: the adapter's `authenticate` hook, given the neutral request (the adapter hands
 * its own request object to the user's hook). What it returns becomes `principal` in the
 * message context; an `HttpAuthError` (or any throw) refuses the request.
 */
export type Authenticate = (request: HttpRequest) => unknown;

export interface HttpCoreOptions extends HttpEndpointOptions {
  readonly authenticate?: Authenticate | undefined;
  /** Step 1: the one path served; requests elsewhere get 404. Unset: every path (a handler mounted by its host). */
  readonly endpointPath?: string | undefined;
}

/** One endpoint: `handle` serves a request and never throws (a failure answers 500, or cuts the response). */
export interface HttpCore {
  handle(request: HttpRequest, response: HttpResponse): void;
}

export function createHttpCore(server: ConnectableServer, options: HttpCoreOptions = {}): HttpCore {
  const allowedOrigins = options.allowedOrigins ?? isLocalhostOrigin;
  const bodies = new BodyLimits(options.maxBodyBytes, options.maxTotalBodyBytes, options.bodyTimeoutMs);
  const onError = options.onError ?? (() => {});
  const { authenticate, endpointPath } = options;
  // One budget for every stream this endpoint serves.
  const exchangeOptions: HttpEndpointOptions = { ...options, budget: options.budget ?? new SseBudget(options.maxTotalBufferedBytes) };
  const scope: CoreScope = { server, options: exchangeOptions, bodies };
  const clientAddressOf = clientAddresses(options.trustedProxies);

  return {
    handle(request, response) {
      try {
        const served = route(request, response);
        if (served !== undefined) served.catch((error: unknown) => fail(response, error));
      } catch (error) {
        fail(response, error);
      }
    },
  };

  /** A failure with no other place to go: reported, and answered 500 (or the response cut). */
  function fail(res: HttpResponse, error: unknown): void {
    onError(error);
    if (!res.headersSent) writeRejection(res, { status: 500, body: errorResponse(null, ERROR_CODES.InternalError, "Internal error") });
    else res.destroy();
  }

  /** Steps 1 to 3, synchronous; then the promise of the rest (none when answered here). */
  function route(req: HttpRequest, res: HttpResponse): Promise<void> | void {
    const known = options.wellKnown?.(req.method, req.path);
    if (known !== undefined) return writeRejection(res, known);
    if (endpointPath !== undefined && req.path !== endpointPath) return writeRejection(res, noEndpoint(req.path, endpointPath));
    const era = eraOf(server);
    const sessionId = req.headers.get(SESSION_HEADER) ?? undefined;
    // Classified once, here: the era's destinations, else the core's POST path.
    const destination: Destination = era?.destination(req, sessionId) ?? "post";
    const origin = req.headers.get("origin") ?? undefined;
    const refused = checkOrigin(origin, allowedOrigins);
    if (refused !== undefined) return writeRejection(res, refused);
    if (origin !== undefined) {
      // An allowed browser origin: its preflight is answered, and every answer names it.
      if (req.method === "OPTIONS") return answerEmpty(res, 204, preflightHeaders(origin, era !== undefined));
      for (const [name, value] of Object.entries(corsHeaders(origin))) res.setHeader(name, value);
    }
    const wrongVerb = destination === "post" ? checkVerb(req.method) : undefined;
    if (wrongVerb !== undefined) return writeRejection(res, wrongVerb);
    const unfit = req.method === "POST" ? checkPostHeaders(req.headers) : undefined;
    if (unfit !== undefined) return req.refuse(res, unfit);
    if (authenticate !== undefined) return authenticated(req, res, authenticate, sessionId, destination);
    return serve(req, res, sessionId, destination, undefined);
  }

  async function authenticated(
    req: HttpRequest,
    res: HttpResponse,
    check: Authenticate,
    sessionId: string | undefined,
    destination: Destination,
  ): Promise<void> {
    const context = await runAuthenticate(req, check);
    if ("status" in context) return req.refuse(res, context);
    return serve(req, res, sessionId, destination, context.context);
  }

  function serve(
    req: HttpRequest,
    res: HttpResponse,
    sessionId: string | undefined,
    destination: Destination,
    context: MessageContext | undefined,
  ): Promise<void> | void {
    const address = clientAddressOf(req);
    if (destination === "post") return servePost(req, res, sessionId, context, address);
    return eraOf(server)!.serve(destination, new EraRequest(req, res, sessionId, context, address, scope));
  }

  /** A POST outside any era session: a 2026-07-28 message, or an `initialize` opening one. */
  async function servePost(
    req: HttpRequest,
    res: HttpResponse,
    sessionId: string | undefined,
    context: MessageContext | undefined,
    address: string | undefined,
  ): Promise<void> {
    const era = eraOf(server);
    const parsed = await req.readMessage(bodies);
    if ("status" in parsed) return req.refuse(res, parsed);
    if (parsed.kind === "response") return writeRejection(res, refuseClientResponse(parsed.message));
    const legacyInitialize = isEraInitialize(parsed.message);
    if (legacyInitialize && era !== undefined && parsed.kind === "request")
      return era.initialize(new EraRequest(req, res, sessionId, context, address, scope), parsed.message);
    // A modern-only server's core answers a legacy initialize with the versions it speaks.
    const mismatch = legacyInitialize
      ? undefined
      : (checkMcpHeaders(req.headers, parsed.message) ?? checkParamHeaders(req.headers, parsed.message, server.toolParamHeaders?.bind(server)));
    if (mismatch !== undefined) return writeRejection(res, mismatch);
    const forbidden = checkScopes(scope, context, parsed.message);
    if (forbidden !== undefined) return writeRejection(res, forbidden);
    if (server.closed === true) return writeRejection(res, shuttingDown(parsed.kind === "request" ? parsed.message.id : null));
    const exchange = new HttpExchange(res, parsed.message, context, address, exchangeOptions);
    await server.connect(exchange);
    if (parsed.kind !== "request") {
      // A notification is accepted as soon as the server has it.
      answerEmpty(res, 202);
    }
  }
}

/**
 * Where a request goes after the common checks: one of the era's destinations (a session it
 * names, `Mcp-Session-Id`; an HTTP+SSE stream it opens or posts to), or the POST path every
 * other message takes.
 */
type Destination = EraDestination | "post";

/** The HTTP side of the server's era, if it serves any. */
function eraOf(server: ConnectableServer): EraHttp | undefined {
  return server.legacySessions?.http;
}

/** How the endpoint finds a request's client address: its peer, or what trusted proxies say of it. */
function clientAddresses(trustedProxies: readonly string[] | undefined): (req: HttpRequest) => string | undefined {
  if (trustedProxies === undefined || trustedProxies.length === 0) return (req) => req.remoteAddress;
  const clientAddressOf = trustProxies(trustedProxies);
  return (req) => clientAddressOf(req.remoteAddress, req.headers.get("x-forwarded-for"));
}

/** A POST that reaches a closing server: nothing was done, so the client may send it again elsewhere. */
function shuttingDown(id: RequestId | null): HttpRejection {
  return {
    status: 503,
    headers: { "retry-after": "1", connection: "close" },
    body: errorResponse(id, ERROR_CODES.InternalError, "server is shutting down; send the request again"),
  };
}

function noEndpoint(path: string, endpointPath: string): HttpRejection {
  return { status: 404, body: errorResponse(null, ERROR_CODES.InvalidRequestError, `no MCP endpoint at ${path}; use ${endpointPath}`) };
}

async function runAuthenticate(req: HttpRequest, check: Authenticate): Promise<{ context?: MessageContext } | HttpRejection> {
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

/**
 * The `authorize` step: the scopes the message's tool, prompt or resource declares, held to
 * the caller's. `viewer`: the principal the request will be served as (a legacy session's is
 * the one that opened it), so that what its handlers will not see needs no scope here and is
 * answered as unknown, not 403; never another, or a hidden primitive would skip its scopes.
 */
function checkScopes(
  scope: CoreScope,
  context: MessageContext | undefined,
  message: JsonRpcMessage,
  session?: { readonly meta: Readonly<Record<string, unknown>>; readonly principal: unknown },
): HttpRejection | undefined {
  const authorize = scope.options.authorize;
  if (authorize === undefined || !("method" in message) || scope.server.requiredScopes === undefined) return undefined;
  const params = message.params as Readonly<Record<string, unknown>> | undefined;
  const principal = context?.["principal"];
  const viewer = { principal: session === undefined ? principal : session.principal };
  const required = scope.server.requiredScopes(message.method, params, session?.meta, viewer);
  return required.length === 0 ? undefined : authorize(principal, required);
}

/** What every request of one endpoint shares. */
interface CoreScope {
  readonly server: ConnectableServer;
  readonly options: HttpEndpointOptions;
  /** One budget for the bodies of every request this endpoint reads. */
  readonly bodies: BodyLimits;
}

/** One request handed to the era: one object per request, its methods on the prototype. */
class EraRequest implements EraHttpExchange {
  constructor(
    readonly req: HttpRequest,
    readonly res: HttpResponse,
    readonly sessionId: string | undefined,
    readonly context: MessageContext | undefined,
    readonly clientAddress: string | undefined,
    readonly scope: CoreScope,
  ) {}

  get sse(): ExchangeOptions {
    return this.scope.options;
  }

  reject(rejection: HttpRejection): void {
    this.req.refuse(this.res, rejection);
  }

  readMessage(): Promise<ParsedBody | HttpRejection> {
    return this.req.readMessage(this.scope.bodies);
  }

  get closing(): boolean {
    return this.scope.server.closed === true;
  }

  forbidden(message: JsonRpcMessage, sessionMeta: Readonly<Record<string, unknown>>, sessionPrincipal: unknown): HttpRejection | undefined {
    return checkScopes(this.scope, this.context, message, { meta: sessionMeta, principal: sessionPrincipal });
  }
}

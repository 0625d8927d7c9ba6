/**
 * The legacy (2025-11-25) side of Streamable HTTP on the same endpoint: an `initialize`
 * POST (it carries no `Mcp-Method` header) creates a session and answers with its
 * `Mcp-Session-Id`; every later request names it (404 for an unknown or expired one); a
 * GET opens the session's standalone SSE stream for server-initiated notifications; a
 * DELETE ends the session. A client's answer to a request the session sent it (see
 * server-requests.ts) is POSTed with the session id. Sessions are bounded in number, idle
 * time and the bytes their GET stream may hold (`LegacyOptions`).
 */
import { ERROR_CODES } from "../protocol.js";
import { errorResponse, type JsonRpcRequest } from "../jsonrpc.js";
import { answerEmpty, refuseClientResponse, statusForErrorCode, type HttpRejection } from "../transports/http-request.js";
import type { HttpRequest } from "../transports/http-io.js";
import { SESSION_HEADER, type EraHttpExchange } from "../era.js";
import type { LegacyEra } from "./era.js";
import { serveInSession } from "./post-exchange.js";
import { openSessionStream } from "./resumable.js";
import { LegacySession } from "./session.js";
import { clientKey } from "../subscriptions/slots.js";

export { SESSION_HEADER };

/** What the HTTP handler hands over for one legacy request (the core's type, era.ts). */
export type LegacyHttpExchange = EraHttpExchange;

/** Whether a request belongs to a legacy session before its body is read: it names one (without one, a GET may open an HTTP+SSE stream, sse-endpoint.ts; DELETE stays 405). */
export function isLegacyTransportRequest(era: LegacyEra | undefined, sessionId: string | undefined): boolean {
  return era !== undefined && era.enabled && sessionId !== undefined;
}

/** An `initialize` POST: a new session whose id travels on the answer; a refused one (400, or 503 at the limit) opens none. */
export async function openHttpSession(era: LegacyEra, exchange: LegacyHttpExchange, message: JsonRpcRequest): Promise<void> {
  // A store that does not answer could not keep the session: refused now rather than after its command timeout.
  if (era.shared?.store.ready === false) return refuseStoreSilent(era, exchange, message.id, message.method);
  // The client as a listen over this request would be keyed: its principal, else its address, else its socket.
  const session = era.open(message, undefined, false, clientKey(exchange.context?.["principal"], exchange.clientAddress, exchange.req.connection));
  if (!(session instanceof LegacySession)) {
    if (session.refused === "full") return exchange.reject({ status: 503, headers: { "retry-after": "5" }, body: session.error });
    // This client at its share: waiting does not help, ending one of its sessions does.
    if (session.refused === "share") return exchange.reject({ status: 429, body: session.error });
    return exchange.reject({ status: statusForErrorCode(session.error.error.code), body: session.error });
  }
  exchange.res.setHeader(SESSION_HEADER, session.id);
  await serveInSession(era, exchange, message, session);
}

/** A POST, GET or DELETE naming a session. */
export async function serveSessionRequest(era: LegacyEra, exchange: LegacyHttpExchange): Promise<void> {
  const { req, res, sessionId } = exchange;
  // While the store does not answer, what needs it (a session this replica holds no copy of, a GET stream read from
  // the store's window) is asked to retry, rather than told the session is gone; a request a copy here serves goes on.
  if (era.shared?.store.ready === false && (req.method === "GET" || era.get(sessionId!) === undefined)) {
    return refuseStoreSilent(era, exchange, null, `${req.method} for a session`);
  }
  const found = era.find(sessionId!);
  // Only a shared session not yet copied to this replica is looked up asynchronously.
  const session = found instanceof Promise ? await found : found;
  // A session belongs to whoever opened it: another principal is told it does not exist.
  if (session === undefined || session.closed || !samePrincipal(session.context?.["principal"], exchange.context?.["principal"])) {
    return exchange.reject({
      status: 404,
      body: errorResponse(null, ERROR_CODES.InvalidRequestError, "Unknown or expired Mcp-Session-Id; send initialize to start a new session"),
    });
  }
  era.touched(session); // a POST's message sets it again: the session may have waited for the body
  if (req.method === "DELETE") {
    await session.close("cancelled");
    return answerEmpty(res, 204);
  }
  if (req.method === "GET") return await openSessionStream(era, session, exchange);
  if (req.method !== "POST") {
    return exchange.reject({
      status: 405,
      headers: { allow: "GET, POST, DELETE" },
      body: errorResponse(null, ERROR_CODES.InvalidRequestError, `HTTP ${req.method} is not supported`),
    });
  }
  const mismatch = versionMismatch(req, session);
  if (mismatch !== undefined) return exchange.reject(mismatch);
  const read = await exchange.readMessage();
  if ("status" in read) return exchange.reject(read);
  if (!("method" in read.message)) {
    // Only an answer to a request this session sent and still waits for is taken; any other is refused as on the modern path.
    // With a store, the answer may be awaited on another replica.
    const taken = session.answer(read.message) || (await session.answerElsewhere(read.message));
    return taken ? answerEmpty(res, 202) : exchange.reject(refuseClientResponse(read.message));
  }
  await serveInSession(era, exchange, read.message, session);
  if (read.kind !== "request") answerEmpty(res, 202);
}

/** Refuses a request that needs the session store while it does not answer, and reports the refusal (`onEvent`) with its cause. */
function refuseStoreSilent(era: LegacyEra, exchange: LegacyHttpExchange, id: JsonRpcRequest["id"] | null, what: string): void {
  const error = new Error("the session store does not answer (it is not ready); answered 503 with Retry-After");
  era.host.emit({ type: "handler-error", id, callback: what, error });
  return exchange.reject(storeSilent(id));
}

/** The answer to a request that needs the session store while it does not answer: retry shortly (another replica may reach it). */
function storeSilent(id: JsonRpcRequest["id"] | null): HttpRejection {
  return {
    status: 503,
    headers: { "retry-after": "1" },
    body: errorResponse(id, ERROR_CODES.InternalError, "The session store does not answer; retry the request shortly"),
  };
}

/** A request without the header is the session's own revision (2025-03-26 clients send none); one naming another is refused. */
export function versionMismatch(req: HttpRequest, session: LegacySession): HttpRejection | undefined {
  const version = req.headers.get("mcp-protocol-version");
  if (typeof version !== "string" || session.version === undefined || version === session.version) return undefined;
  return {
    status: 400,
    body: errorResponse(null, ERROR_CODES.InvalidRequestError, `MCP-Protocol-Version "${version}" does not match this session's ${session.version}`),
  };
}

/** A session belongs to whoever opened it: the principal of every later request must be the same. */
export function samePrincipal(owner: unknown, caller: unknown): boolean {
  if (owner === caller) return true;
  try {
    return JSON.stringify(owner) === JSON.stringify(caller);
  } catch {
    return false;
  }
}

/**
 * The initialize era as the core sees it (the `Era` of ../era.ts): the router and registry of
 * sessions (era.ts) with its HTTP destinations: a session a request names (http.ts), an
 * HTTP+SSE stream a GET opens or a POST to one (sse-endpoint.ts), and an `initialize` POST.
 * The main entry's `createServer` (../create-server.ts) builds its server with it.
 */
import type { JsonRpcRequest } from "../jsonrpc.js";
import type { HttpRequest } from "../transports/http-io.js";
import type { Era, EraDestination, EraFactory, EraHost, EraHttp, EraHttpExchange } from "../era.js";
import { LegacyEra, type LegacyOptions } from "./era.js";
import { isLegacyTransportRequest, openHttpSession, serveSessionRequest } from "./http.js";
import { openSseStream, serveSsePost, sseTransportRequest } from "./sse-endpoint.js";

export class InitializeEra extends LegacyEra implements Era {
  /** Undefined for a modern-only server (`legacy: false`): every request takes the core's path. */
  readonly http: EraHttp | undefined;

  constructor(host: EraHost, options: LegacyOptions | false | undefined) {
    super(host, options);
    this.http = this.enabled ? new LegacyHttp(this) : undefined;
  }
}

/** The era for `createServer({ legacy })`: sessions with these limits, or none (`false`, modern-only). */
export function initializeEra(options: LegacyOptions | false | undefined): EraFactory<InitializeEra> {
  return (host) => new InitializeEra(host, options);
}

class LegacyHttp implements EraHttp {
  constructor(readonly era: LegacyEra) {}

  /** Whether a request is the era's, before its body is read (http.ts, sse-endpoint.ts). */
  destination(req: HttpRequest, sessionId: string | undefined): EraDestination | undefined {
    return isLegacyTransportRequest(this.era, sessionId) ? "session" : sseTransportRequest(this.era, req, sessionId);
  }

  serve(destination: EraDestination, exchange: EraHttpExchange): Promise<void> | void {
    if (destination === "session") return serveSessionRequest(this.era, exchange);
    if (destination === "open") return openSseStream(this.era, exchange);
    return serveSsePost(this.era, exchange);
  }

  initialize(exchange: EraHttpExchange, message: JsonRpcRequest): Promise<void> {
    return openHttpSession(this.era, exchange, message);
  }
}

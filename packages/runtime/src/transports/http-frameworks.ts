/**
 * Thin adapters for the two routers most servers already run: Express (node requests: the
 * node handler as middleware) and Hono (web requests: the fetch handler as a route
 * handler). Typed by the shapes they use, so the runtime depends on neither library.
 *
 *   app.post("/mcp", toExpressMiddleware(server));          // also app.all for legacy GET/DELETE
 *   app.all("/mcp", toHonoHandler(server));
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createHttpCore, type ConnectableServer } from "./http-core.js";
import { toFetchHandler, type FetchHandlerOptions } from "./http-fetch.js";
import type { HttpResponse } from "./http-io.js";
import { NodeRequest } from "./http-node.js";
import { parseBody, writeRejection, type BodyLimits, type HttpRejection, type ParsedBody } from "./http-request.js";
import type { HttpHandlerOptions } from "./http-server.js";

/** An Express request: Node's, with `body` once a body parser (`express.json()`) has read it. */
export type ExpressLikeRequest = IncomingMessage & { body?: unknown };

/**
 * Express middleware serving `server` over Streamable HTTP. The body is read by the
 * handler within its limits; mounted after `express.json()`, the body that parser already
 * read is used as it parsed it (its own size limit applied), since the stream is spent.
 */
export function toExpressMiddleware(
  server: ConnectableServer,
  options: HttpHandlerOptions = {},
): (req: ExpressLikeRequest, res: ServerResponse, next: (error?: unknown) => void) => void {
  const hook = options.authenticate;
  const core = createHttpCore(server, {
    ...options,
    authenticate: hook === undefined ? undefined : (request) => hook((request as NodeRequest).req),
  });
  return (req, res) => core.handle(req.readableEnded && req.body !== undefined ? new ParsedNodeRequest(req) : new NodeRequest(req), res);
}

/** A node request whose body a parser already read: its parsed value stands for the body. */
class ParsedNodeRequest extends NodeRequest {
  override readMessage(_limits: BodyLimits): Promise<ParsedBody | HttpRejection> {
    return Promise.resolve(parseBody(JSON.stringify((this.req as ExpressLikeRequest).body)));
  }

  /** Nothing of the body is left to drop. */
  override refuse(response: HttpResponse, rejection: HttpRejection): void {
    writeRejection(response, rejection);
  }
}

/** What a Hono route handler is given, as far as MCP needs it: the web request and the runtime's bindings. */
export interface HonoLikeContext {
  readonly req: { readonly raw: Request };
  readonly env?: unknown;
}

/**
 * A Hono route handler serving `server` over Streamable HTTP (the fetch handler on the raw
 * request). The client address comes from `c.env` as the fetch handler reads its second
 * argument: Bun's server, Deno's info, or under `@hono/node-server` its `incoming` request's socket.
 */
export function toHonoHandler(server: ConnectableServer, options: FetchHandlerOptions = {}): (c: HonoLikeContext) => Promise<Response> {
  const handler = toFetchHandler(server, options);
  return (c) => handler(c.req.raw, c.env);
}

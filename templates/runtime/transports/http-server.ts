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
import { isLocalhostOrigin } from "./http-request.js";

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
  // Loaded here, not at the top: the rest of the runtime (the fetch path) runs where node:http does not exist.
  const { createServer } = await import("node:http");
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  // Browsers on this machine may call a server bound to this machine; bound wider, no
  // browser origin is trusted until the caller lists it.
  const allowedOrigins = options.allowedOrigins ?? (isLoopback(host) ? isLocalhostOrigin : []);
  const httpServer = createServer(nodeHandler(server, { ...options, allowedOrigins }, path));
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

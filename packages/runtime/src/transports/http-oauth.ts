/**
 * OAuth on the HTTP endpoint: the transport-neutral resource server (auth/) plugged into the
 * three seams every adapter of the core offers (`createHttpHandler`, `serveHttp`, `toFetchHandler`): `authenticate` (the bearer token to
 * a principal, or a 401 with its challenge), `authorize` (a 403 for a request whose tool,
 * prompt or resource declares scopes the token lacks) and `wellKnown` (the Protected
 * Resource Metadata, served beside the endpoint). jose is loaded on the first token, not here.
 *
 *   await serveHttp(server, { port, ...oauthHttpOptions(server, { resource: "https://example.com/mcp", issuers: "https://auth.example.com" }) });
 *
 * With `createHttpHandler` mounted in an application's own server, route the metadata paths
 * to `wellKnown` there as well.
 */
import { createResourceServer, ResourceServer, type AuthRequest, type OAuthOptions } from "../auth/resource-server.js";
import { HttpAuthError, type ConnectableServer, type HttpEndpointOptions } from "./http-core.js";

/** The server's side of OAuth: what its registrations declare. */
export interface ScopedServer extends ConnectableServer {
  declaredScopes?(): readonly string[];
}

export type OAuthHttpOptions = Required<{ [K in "authorize" | "wellKnown"]: NonNullable<HttpEndpointOptions[K]> }> & {
  /** A node `IncomingMessage` or a web `Request`: both carry a method and headers. */
  readonly authenticate: (request: AuthRequest) => Promise<unknown>;
  /** The resource server behind them (its `resource`, `metadataUrl`, `document()`). */
  readonly resourceServer: ResourceServer;
};

/** The HTTP options that make `server` an OAuth resource server; `scopes_supported` follows its declarations. */
export function oauthHttpOptions(server: ScopedServer, options: OAuthOptions | ResourceServer): OAuthHttpOptions {
  const resourceServer =
    options instanceof ResourceServer ? options : createResourceServer({ scopesSupported: () => server.declaredScopes?.() ?? [], ...options });
  return {
    resourceServer,
    authenticate: async (req: AuthRequest) => {
      const outcome = await resourceServer.authenticate({ method: req.method, headers: req.headers });
      if ("principal" in outcome) return outcome.principal;
      const { status, message, headers } = outcome.rejection;
      const { "www-authenticate": challenge, ...others } = headers;
      throw new HttpAuthError(message, status, challenge, others);
    },
    authorize: (principal, required) => resourceServer.authorize(principal, required),
    wellKnown: (method, path) => resourceServer.respond(method, path),
  };
}

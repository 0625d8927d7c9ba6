/**
 * A real authorization server for the OAuth tests: `oidc-provider` (a certified OpenID
 * provider) on 127.0.0.1 at an OS-chosen port, issuing JWT access tokens with resource
 * indicators (RFC 8707) through the client-credentials grant, and introspecting its opaque
 * tokens (RFC 7662). Each test owns one and closes it.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import Provider from "oidc-provider";

export interface TestClient {
  readonly clientId: string;
  readonly clientSecret: string;
  /** The scopes this client may be granted (space-separated). */
  readonly scope: string;
  /** Lifetime of its access tokens in seconds. Default 300. */
  readonly tokenTtlSeconds?: number;
}

export interface AuthorizationServer {
  /** `http://127.0.0.1:<port>`, as the provider's metadata names it. */
  readonly issuer: string;
  /** The private signing key's `kid`. */
  readonly kid: string;
  /** A client-credentials token for `resource`; `opaque` asks for a reference token instead of a JWT. */
  token(client: TestClient, resource: string, scope?: string, opaque?: boolean): Promise<string>;
  /** A JWT signed with the provider's own key, with these claims (for claims it never issues, such as nbf). */
  sign(claims: Record<string, unknown>): Promise<string>;
  /** Requests served, by path: what the resource server fetched (its metadata, its keys). */
  readonly hits: ReadonlyMap<string, number>;
  /** The most requests it was serving at once, by path (e.g. how many introspections ran together). */
  readonly peaks: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

/** Every scope any test client uses; the provider refuses others. */
const SCOPES = ["mcp:admin", "mcp:read", "mcp:write"];
const RESOURCE_SERVER_CLIENT = { clientId: "mcp-resource-server", clientSecret: "introspection-secret", scope: "" };

export async function startAuthorizationServer(clients: readonly TestClient[]): Promise<AuthorizationServer> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = "test-signing-key";
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
  const httpServer: HttpServer = createServer();
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const ttl = new Map(clients.map((client) => [client.clientId, client.tokenTtlSeconds ?? 300]));
  const opaqueRequests = new WeakSet<object>();
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    clients: [...clients, RESOURCE_SERVER_CLIENT].map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      ...(client.scope === "" ? {} : { scope: client.scope }),
    })),
    scopes: SCOPES,
    ttl: { ClientCredentials: (_ctx: unknown, _token: unknown, client: { clientId: string }) => ttl.get(client.clientId) ?? 300 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx: { req: object; oidc: { client: { clientId: string } } }, resource: string) => ({
          scope: SCOPES.join(" "),
          audience: resource,
          accessTokenTTL: ttl.get(ctx.oidc.client.clientId) ?? 300,
          accessTokenFormat: opaqueRequests.has(ctx.req) ? "opaque" : "jwt",
          jwt: { sign: { alg: "RS256" } },
        }),
      },
    },
  });
  const callback = provider.callback();
  const hits = new Map<string, number>();
  const serving = new Map<string, number>();
  const peaks = new Map<string, number>();
  httpServer.on("request", (req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    serving.set(path, (serving.get(path) ?? 0) + 1);
    peaks.set(path, Math.max(peaks.get(path) ?? 0, serving.get(path)!));
    res.on("close", () => serving.set(path, serving.get(path)! - 1));
    // The test marks a token request that should get an opaque token with this header.
    if (req.headers["x-test-opaque"] === "1") opaqueRequests.add(req);
    callback(req, res);
  });
  return {
    issuer,
    kid,
    hits,
    peaks,
    sign: (claims) => new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid, typ: "at+jwt" }).sign(privateKey),
    async token(client, resource, scope, opaque = false) {
      const body = new URLSearchParams({ grant_type: "client_credentials", resource, ...(scope === undefined ? {} : { scope }) });
      const response = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
          ...(opaque ? { "x-test-opaque": "1" } : {}),
        },
        body,
      });
      const answer = (await response.json()) as { access_token?: string };
      if (answer.access_token === undefined) throw new Error(`token request failed: HTTP ${response.status} ${JSON.stringify(answer)}`);
      return answer.access_token;
    },
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      }),
  };
}

/** The client the resource server introspects with (registered on every test provider). */
export const INTROSPECTION_CLIENT = RESOURCE_SERVER_CLIENT;

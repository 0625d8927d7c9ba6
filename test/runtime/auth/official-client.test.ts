/**
 * The official 2.x client's own OAuth support, end to end, against the resource server and
 * a real authorization server (oidc-provider): from the first 401 it reads the Protected
 * Resource Metadata, finds the issuer, gets a client-credentials token for this resource,
 * lists tools, and is refused admin_reset, which needs a scope its client may not have. The
 * client asks for the scope the 401 challenge names (the server's `requiredScopes`).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer, oauthHttpOptions, serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/index.js";
import { freePort } from "../../support/ports.js";
import { startAuthorizationServer, type AuthorizationServer, type TestClient } from "../../support/oidc-provider.js";

const READER: TestClient = { clientId: "reader", clientSecret: "reader-secret", scope: "mcp:read" };

let as: AuthorizationServer;
let http: HttpServerHandle;
const statuses: number[] = [];

before(async () => {
  as = await startAuthorizationServer([READER]);
  const server = createServer({ name: "oauth-e2e", version: "1.0.0" });
  server.addTool({ name: "greet", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "hello" }] }));
  server.addTool({ name: "admin_reset", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "reset" }] }), { scopes: ["mcp:admin"] });
  const port = await freePort();
  http = await serveHttp(server, {
    port,
    ...oauthHttpOptions(server, { resource: `http://127.0.0.1:${port}/mcp`, issuers: as.issuer, requiredScopes: ["mcp:read"] }),
  });
  // What the client was answered, in order (read from the server side, not from the client).
  http.httpServer.prependListener("request", (req, res) => {
    if (req.url?.startsWith("/mcp")) res.once("finish", () => statuses.push(res.statusCode));
  });
});

after(async () => {
  await http?.close();
  await as?.close();
});

describe("the official 2.x client's OAuth", () => {
  test("from the first 401 it finds the metadata, gets a token, lists tools, and is refused admin_reset without the scope", { timeout: 30_000 }, async () => {
    const authProvider = new ClientCredentialsProvider({ clientId: READER.clientId, clientSecret: READER.clientSecret, expectedIssuer: as.issuer });
    const transport = new StreamableHTTPClientTransport(new URL(http.url), { authProvider });
    const client = new Client({ name: "oauth-e2e-client", version: "1.0.0" });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ["admin_reset", "greet"]);
      assert.equal(statuses[0], 401, "the first request had no token");
      assert.ok((as.hits.get("/token") ?? 0) >= 1, "the client asked the authorization server for a token");
      const tokens = authProvider.tokens();
      assert.equal(tokens?.scope, "mcp:read");
      const greeted = await client.callTool({ name: "greet", arguments: {} });
      assert.deepEqual(greeted.content, [{ type: "text", text: "hello" }]);
      await assert.rejects(client.callTool({ name: "admin_reset", arguments: {} }));
      assert.ok(statuses.includes(403), "admin_reset was answered 403");
    } finally {
      await client.close();
    }
  });
});

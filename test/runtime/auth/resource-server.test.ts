/**
 * The OAuth resource server on the node handler, against a real authorization server
 * (oidc-provider on loopback): the metadata document, the 401 challenge for every kind of
 * bad token, the principal a good one yields, and the 403 for a missing declared scope.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { createServer, oauthHttpOptions, serveHttp, type HttpServerHandle, type Server } from "../../../packages/runtime/src/index.js";
import { freePort } from "../../support/ports.js";
import { INTROSPECTION_CLIENT, startAuthorizationServer, type AuthorizationServer, type TestClient } from "../../support/oidc-provider.js";
import { post, request } from "../transports/http-helpers.js";

const READER: TestClient = { clientId: "reader", clientSecret: "reader-secret", scope: "mcp:read" };
const ADMIN: TestClient = { clientId: "admin", clientSecret: "admin-secret", scope: "mcp:read mcp:admin" };
const SHORT_LIVED: TestClient = { clientId: "short", clientSecret: "short-secret", scope: "mcp:read", tokenTtlSeconds: 4 };

let as: AuthorizationServer;
let http: HttpServerHandle;
let resource: string;
const seenPrincipals: unknown[] = [];

function appServer(): Server {
  const server = createServer({ name: "oauth-test", version: "1.0.0" });
  server.addTool({ name: "whoami", inputSchema: { type: "object" } }, (_args, context) => {
    seenPrincipals.push(context.meta["principal"]);
    return { content: [{ type: "text", text: JSON.stringify(context.meta["principal"]) }] };
  });
  server.addTool({ name: "admin_reset", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "reset" }] }), { scopes: ["mcp:admin"] });
  server.addPrompt({ name: "report" }, () => ({ messages: [] }), { scopes: ["mcp:read"] });
  return server;
}

before(async () => {
  as = await startAuthorizationServer([READER, ADMIN, SHORT_LIVED]);
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  const server = appServer();
  const oauth = oauthHttpOptions(server, { resource, issuers: as.issuer, clockToleranceSeconds: 0, introspection: INTROSPECTION_CLIENT });
  http = await serveHttp(server, { port, ...oauth });
});

after(async () => {
  await http?.close();
  await as?.close();
});

const listTools = () => request(1, "tools/list");
const call = (name: string) => request(2, "tools/call", { name, arguments: {} });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The challenge's parameters, parsed. */
function challenge(headers: Headers): Record<string, string> {
  const value = headers.get("www-authenticate") ?? "";
  assert.match(value, /^Bearer /);
  return Object.fromEntries([...value.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((match) => [match[1]!, match[2]!]));
}

function assertInvalidToken(answer: { status: number; headers: Headers }, reason: RegExp): void {
  assert.equal(answer.status, 401);
  const params = challenge(answer.headers);
  assert.equal(params["resource_metadata"], resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"));
  assert.equal(params["error"], "invalid_token");
  assert.match(params["error_description"] ?? "", reason);
}

describe("OAuth resource server", () => {
  test("the metadata document names the resource, the issuer and the declared scopes at the path-aware and the root URI", async () => {
    const origin = new URL(resource).origin;
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const response = await fetch(origin + path);
      assert.equal(response.status, 200, path);
      assert.deepEqual(await response.json(), {
        resource,
        authorization_servers: [as.issuer],
        scopes_supported: ["mcp:admin", "mcp:read"],
        bearer_methods_supported: ["header"],
      });
    }
    assert.equal((await fetch(origin + "/.well-known/oauth-protected-resource/other")).status, 404);
    assert.equal((await fetch(origin + "/.well-known/oauth-protected-resource/mcp", { method: "POST" })).status, 405);
  });

  test("a request without a token gets 401 with a challenge naming the metadata", async () => {
    const answer = await post(http.url, listTools());
    assert.equal(answer.status, 401);
    const params = challenge(answer.headers);
    assert.equal(params["resource_metadata"], `${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(params["error"], undefined, "RFC 6750 §3.1: no error code when no token was sent");
    assert.equal(answer.body.error.code, -32600);
  });

  test("a token issued for another resource (audience) gets 401 invalid_token", async () => {
    const token = await as.token(READER, "http://127.0.0.1:1/elsewhere", "mcp:read");
    assertInvalidToken(await post(http.url, listTools(), bearer(token)), /audience/);
  });

  test("an expired token gets 401 invalid_token, also one that was accepted (and kept) while valid", async () => {
    const token = await as.token(SHORT_LIVED, resource, "mcp:read");
    assert.equal((await post(http.url, listTools(), bearer(token))).status, 200);
    // exp is in whole seconds: wait for the one the token carries (at most its 4 s TTL; 1 s left too little time for the first answer on a loaded machine).
    const { exp } = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { exp: number };
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 100));
    assertInvalidToken(await post(http.url, listTools(), bearer(token)), /expired/);
  });

  test("a token signed by another key gets 401 invalid_token, under the issuer's kid or an unknown one", async () => {
    const { privateKey } = await generateKeyPair("RS256");
    const forge = (kid: string) =>
      new SignJWT({ scope: "mcp:read mcp:admin", client_id: "reader" })
        .setProtectedHeader({ alg: "RS256", kid, typ: "at+jwt" })
        .setIssuer(as.issuer)
        .setAudience(resource)
        .setSubject("reader")
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(privateKey);
    assertInvalidToken(await post(http.url, listTools(), bearer(await forge(as.kid))), /signature/);
    assertInvalidToken(await post(http.url, listTools(), bearer(await forge("made-up"))), /no key/);
  });

  test("a token not valid yet (nbf) gets 401; one naming this resource among several audiences is accepted", async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: as.issuer, sub: "reader", client_id: "reader", scope: "mcp:read", exp: now + 300 };
    const early = await as.sign({ ...claims, aud: resource, nbf: now + 120 });
    assertInvalidToken(await post(http.url, listTools(), bearer(early)), /not valid yet/);
    const shared = await as.sign({ ...claims, aud: ["https://other.example", resource] });
    assert.equal((await post(http.url, listTools(), bearer(shared))).status, 200);
  });

  test("a legacy session's tools/call is held to the declared scopes too", async () => {
    const reader = await as.token(READER, resource, "mcp:read");
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", ...bearer(reader) };
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "legacy", version: "1" } },
    };
    const opened = await fetch(http.url, { method: "POST", headers, body: JSON.stringify(initialize) });
    await opened.body?.cancel();
    const session = opened.headers.get("mcp-session-id");
    assert.ok(session, `a session was opened (HTTP ${opened.status})`);
    const inSession = { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    await (
      await fetch(http.url, { method: "POST", headers: inSession, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) })
    ).body?.cancel();
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "admin_reset", arguments: {} } };
    const refused = await fetch(http.url, { method: "POST", headers: inSession, body: JSON.stringify(call) });
    await refused.body?.cancel();
    assert.equal(refused.status, 403);
    assert.equal(challenge(refused.headers)["error"], "insufficient_scope");
  });

  test("a token from an untrusted issuer, or an opaque one the issuer does not know, gets 401", async () => {
    const { privateKey } = await generateKeyPair("ES256");
    const foreign = await new SignJWT({})
      .setProtectedHeader({ alg: "ES256" })
      .setIssuer("https://evil.example")
      .setAudience(resource)
      .setSubject("x")
      .setExpirationTime("5m")
      .sign(privateKey);
    assertInvalidToken(await post(http.url, listTools(), bearer(foreign)), /trusted/);
    assertInvalidToken(await post(http.url, listTools(), bearer("not-a-jwt-at-all")), /not active/);
  });

  test("a valid token lists tools, and its client becomes the principal, without the token", async () => {
    const token = await as.token(READER, resource, "mcp:read");
    const listed = await post(http.url, listTools(), bearer(token));
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.result.tools.map((tool: { name: string }) => tool.name),
      ["whoami", "admin_reset"],
    );
    const called = await post(http.url, call("whoami"), bearer(token));
    assert.deepEqual(JSON.parse(called.body.result.content[0].text), { issuer: as.issuer, subject: "reader", clientId: "reader" });
    const principal = seenPrincipals.at(-1) as { scopes: readonly string[] };
    assert.deepEqual(principal.scopes, ["mcp:read"]);
    assert.ok(!JSON.stringify(principal).includes(token) && !Object.values(principal as object).includes(token), "the token is not handed on");
  });

  test("admin_reset without mcp:admin gets 403 insufficient_scope naming the scope; with it, it runs", async () => {
    const reader = await as.token(READER, resource, "mcp:read");
    const refused = await post(http.url, call("admin_reset"), bearer(reader));
    assert.equal(refused.status, 403);
    const params = challenge(refused.headers);
    assert.equal(params["error"], "insufficient_scope");
    assert.equal(params["scope"], "mcp:admin");
    assert.ok(params["resource_metadata"]);
    const admin = await as.token(ADMIN, resource, "mcp:read mcp:admin");
    const served = await post(http.url, call("admin_reset"), bearer(admin));
    assert.equal(served.status, 200);
    assert.equal(served.body.result.content[0].text, "reset");
  });

  test("a prompt declaring a scope is held to it too", async () => {
    const admin = await as.token(ADMIN, resource, "mcp:admin");
    const refused = await post(http.url, request(3, "prompts/get", { name: "report" }), bearer(admin));
    assert.equal(refused.status, 403);
    assert.equal(challenge(refused.headers)["scope"], "mcp:read");
  });

  test("requiredScopes are named in the 401 challenge and listed, and a token without them gets 403", async () => {
    const server = appServer();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/mcp`;
    const strict = await serveHttp(server, { port, ...oauthHttpOptions(server, { resource: base, issuers: as.issuer, requiredScopes: ["mcp:write"] }) });
    try {
      const bare = await post(strict.url, listTools());
      assert.equal(challenge(bare.headers)["scope"], "mcp:write");
      const metadata = (await (await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`)).json()) as { scopes_supported: string[] };
      assert.deepEqual(metadata.scopes_supported, ["mcp:admin", "mcp:read", "mcp:write"]);
      const reader = await as.token(READER, base, "mcp:read");
      const refused = await post(strict.url, listTools(), bearer(reader));
      assert.equal(refused.status, 403);
      assert.equal(challenge(refused.headers)["error"], "insufficient_scope");
    } finally {
      await strict.close();
    }
  });

  test("an opaque token is introspected (RFC 7662), its audience checked", async () => {
    const good = await as.token(READER, resource, "mcp:read", true);
    assert.ok(!good.includes("."), "the provider issued an opaque token");
    const listed = await post(http.url, listTools(), bearer(good));
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const foreign = await as.token(READER, "http://127.0.0.1:1/elsewhere", "mcp:read", true);
    assertInvalidToken(await post(http.url, listTools(), bearer(foreign)), /audience/);
  });
});

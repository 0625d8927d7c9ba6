/**
 * Every path to a scoped prompt or resource is held to its scopes, with the error its get or
 * read gives (403 `insufficient_scope`): completion of its arguments or variables, a listen
 * filter naming its URI, and a legacy session's `resources/subscribe`. Against a real
 * authorization server (oidc-provider on loopback).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createServer, oauthHttpOptions, serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/index.js";
import { freePort } from "../../support/ports.js";
import { recordingHandler } from "../../support/recording-handler.js";
import { startAuthorizationServer, type AuthorizationServer, type TestClient } from "../../support/oidc-provider.js";
import { openListen, post, request } from "../transports/http-helpers.js";

const READER: TestClient = { clientId: "reader", clientSecret: "reader-secret", scope: "mcp:read" };
const ADMIN: TestClient = { clientId: "admin", clientSecret: "admin-secret", scope: "mcp:read mcp:admin" };

let as: AuthorizationServer;
let http: HttpServerHandle;
let resource: string;
const completed: string[] = [];

before(async () => {
  as = await startAuthorizationServer([READER, ADMIN]);
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  const server = createServer({ name: "scopes-test", version: "1.0.0" });
  server.addPrompt({ name: "secret", arguments: [{ name: "topic" }] }, () => ({ messages: [] }), {
    scopes: ["mcp:admin"],
    complete: { topic: () => (completed.push("topic"), ["classified"]) },
  });
  server.addResourceTemplate({ uriTemplate: "vault://{name}", name: "vault" }, () => "gold", {
    scopes: ["mcp:admin"],
    complete: { name: () => (completed.push("name"), ["bars"]) },
  });
  server.addResource({ uri: "doc://public", name: "public" }, () => "hello");
  server.addSubscriptionHandler(recordingHandler().handler);
  http = await serveHttp(server, { port, ...oauthHttpOptions(server, { resource, issuers: as.issuer }) });
});

after(async () => {
  await http?.close();
  await as?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const complete = (ref: object, name: string) => request(7, "completion/complete", { ref, argument: { name, value: "" } });

function assertInsufficientScope(answer: { status: number; headers: Headers }, scope: string): void {
  assert.equal(answer.status, 403);
  const challenge = answer.headers.get("www-authenticate") ?? "";
  assert.match(challenge, /error="insufficient_scope"/);
  assert.match(challenge, new RegExp(`scope="${scope}"`));
}

/** A 2025-11-25 session opened with `token`; returns the headers of its later requests. */
async function legacySession(token: string): Promise<Record<string, string>> {
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", ...bearer(token) };
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
  const initialized = await fetch(http.url, {
    method: "POST",
    headers: inSession,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await initialized.body?.cancel();
  return inSession;
}

describe("scopes on every path to a prompt or resource", () => {
  test("completion/complete of a scoped prompt or template is held to its scopes, and its completers do not run", async () => {
    const reader = await as.token(READER, resource, "mcp:read");
    completed.length = 0;
    assertInsufficientScope(await post(http.url, complete({ type: "ref/prompt", name: "secret" }, "topic"), bearer(reader)), "mcp:admin");
    assertInsufficientScope(await post(http.url, complete({ type: "ref/resource", uri: "vault://{name}" }, "name"), bearer(reader)), "mcp:admin");
    assert.deepEqual(completed, []);
    const admin = await as.token(ADMIN, resource, "mcp:read mcp:admin");
    const served = await post(http.url, complete({ type: "ref/prompt", name: "secret" }, "topic"), bearer(admin));
    assert.deepEqual(served.body.result.completion.values, ["classified"]);
    const variable = await post(http.url, complete({ type: "ref/resource", uri: "vault://{name}" }, "name"), bearer(admin));
    assert.deepEqual(variable.body.result.completion.values, ["bars"]);
  });

  test("a listen filter naming a scoped resource URI is held to its scopes", async () => {
    const reader = await as.token(READER, resource, "mcp:read");
    const refused = await openListen(http.url, 1, { resourceSubscriptions: ["doc://public", "vault://x"] }, bearer(reader));
    assertInsufficientScope(refused, "mcp:admin");
    refused.close();
    const open = await openListen(http.url, 2, { resourceSubscriptions: ["doc://public"] }, bearer(reader));
    assert.equal(open.status, 200);
    open.close();
    const admin = await as.token(ADMIN, resource, "mcp:read mcp:admin");
    const granted = await openListen(http.url, 3, { resourceSubscriptions: ["vault://x"] }, bearer(admin));
    assert.equal(granted.status, 200);
    granted.close();
  });

  test("a legacy session's resources/subscribe of a scoped URI is held to its scopes", async () => {
    const reader = await as.token(READER, resource, "mcp:read");
    const inSession = await legacySession(reader);
    const subscribe = (id: number, uri: string) =>
      fetch(http.url, { method: "POST", headers: inSession, body: JSON.stringify({ jsonrpc: "2.0", id, method: "resources/subscribe", params: { uri } }) });
    const refused = await subscribe(2, "vault://x");
    await refused.body?.cancel();
    assertInsufficientScope(refused, "mcp:admin");
    const served = await subscribe(3, "doc://public");
    assert.equal(served.status, 200);
    assert.match(await served.text(), /"result":\{\}/);
  });
});

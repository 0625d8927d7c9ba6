/**
 * The token's client is the principal every per-client bound and task owner keys on: two
 * tokens of one client (with different scopes) count as one client, another client has its
 * own share and cannot read the first one's tasks.
 * And the key cache: an unknown kid refetches the issuer's keys at most once per floor; an
 * issuer that cannot be reached answers 503, not 401, and is not asked again within the floor.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { oauthHttpOptions, runAsTask, serveHttp, createServer } from "../../../packages/runtime/src/index.js";
import { connectTestClient } from "../../../packages/runtime/src/testing/client.js";
import { IssuerKeys } from "../../../packages/runtime/src/auth/issuer-keys.js";
import { loadJose } from "../../../packages/runtime/src/auth/jose.js";
import { DEFAULT_FETCH_BOUNDS } from "../../../packages/runtime/src/auth/resource-server.js";
import { freePort } from "../../support/ports.js";
import { startAuthorizationServer, type AuthorizationServer, type TestClient } from "../../support/oidc-provider.js";
import { countingApp, meta, openListen, post, request } from "../transports/http-helpers.js";

const TASKS = "io.modelcontextprotocol/tasks";

const ALICE: TestClient = { clientId: "alice", clientSecret: "alice-secret", scope: "mcp:read mcp:write" };
const BOB: TestClient = { clientId: "bob", clientSecret: "bob-secret", scope: "mcp:read" };

let as: AuthorizationServer;
before(async () => {
  as = await startAuthorizationServer([ALICE, BOB]);
});
after(async () => {
  await as?.close();
});

describe("OAuth principals and keys", () => {
  test("per-client limits key on the token's client, whatever scopes each token carries", async () => {
    const app = countingApp({ limits: { maxStreamsPerClient: 1 } });
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const http = await serveHttp(app.server, { port, ...oauthHttpOptions(app.server, { resource, issuers: as.issuer }) });
    const streams = [];
    try {
      const aliceRead = await as.token(ALICE, resource, "mcp:read");
      const aliceWrite = await as.token(ALICE, resource, "mcp:write");
      const bob = await as.token(BOB, resource, "mcp:read");
      const first = await openListen(http.url, 1, { toolsListChanged: true }, { authorization: `Bearer ${aliceRead}` });
      streams.push(first);
      assert.equal((await first.next())?.method, "notifications/subscriptions/acknowledged");
      const second = await post(http.url, request(2, "subscriptions/listen", { notifications: { toolsListChanged: true } }), {
        authorization: `Bearer ${aliceWrite}`,
      });
      assert.match(JSON.stringify(second.body), /per-client|share/i, "alice's second token counts against alice's share");
      const other = await openListen(http.url, 3, { toolsListChanged: true }, { authorization: `Bearer ${bob}` });
      streams.push(other);
      assert.equal((await other.next())?.method, "notifications/subscriptions/acknowledged", "bob has a share of his own");
    } finally {
      for (const stream of streams) stream.close();
      await http.close();
    }
  });

  test("a task belongs to the token's client: another token of that client reads it, another client cannot", { timeout: 20_000 }, async () => {
    const server = createServer({ name: "tasks", version: "1" });
    server.addTool({ name: "job", inputSchema: { type: "object" } }, () => runAsTask(async () => ({ content: [{ type: "text", text: "done" }] })));
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const http = await serveHttp(server, { port, ...oauthHttpOptions(server, { resource, issuers: as.issuer }) });
    const withTasks = (id: number, method: string, params: Record<string, unknown>) => ({
      jsonrpc: "2.0" as const,
      id,
      method,
      params: { ...params, _meta: meta({ "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } }) },
    });
    try {
      const aliceRead = await as.token(ALICE, resource, "mcp:read");
      const aliceWrite = await as.token(ALICE, resource, "mcp:write");
      const bob = await as.token(BOB, resource, "mcp:read");
      const created = await post(http.url, withTasks(1, "tools/call", { name: "job", arguments: {} }), { authorization: `Bearer ${aliceRead}` });
      const taskId = created.body.result.taskId as string;
      assert.equal(typeof taskId, "string", JSON.stringify(created.body));
      const own = await post(http.url, withTasks(2, "tasks/get", { taskId }), { authorization: `Bearer ${aliceWrite}` });
      assert.equal(own.body.result?.taskId, taskId, JSON.stringify(own.body));
      const other = await post(http.url, withTasks(3, "tasks/get", { taskId }), { authorization: `Bearer ${bob}` });
      assert.equal(other.body.error?.code, -32602, JSON.stringify(other.body));
    } finally {
      await http.close();
      await server.close();
    }
  });

  test("an unknown kid refetches the keys at most once per floor", async () => {
    let now = 1_000_000;
    const keys = new IssuerKeys(as.issuer, { maxKeys: 32, maxAgeMs: 600_000, minRefreshMs: 30_000, fetch: DEFAULT_FETCH_BOUNDS }, () => now);
    const jose = await loadJose();
    const fetches = () => as.hits.get("/jwks") ?? 0;
    const before = fetches();
    assert.ok(await keys.key(jose, as.kid, "RS256"));
    assert.equal(fetches(), before + 1);
    for (let i = 0; i < 20; i++) assert.equal(await keys.key(jose, `rotated-${i}`, "RS256"), undefined);
    assert.equal(fetches(), before + 1, "unknown kids within the floor fetch nothing");
    now += 30_000;
    assert.equal(await keys.key(jose, "rotated-again", "RS256"), undefined);
    assert.equal(await keys.key(jose, "rotated-once-more", "RS256"), undefined);
    assert.equal(fetches(), before + 2, "past the floor, one refetch");
    assert.ok(await keys.key(jose, as.kid, "RS256"), "the known key is still served from the cache");
    assert.equal(fetches(), before + 2);
  });

  test("an issuer that cannot be reached gets 503 with Retry-After, and is not asked again within the floor", async () => {
    const deadPort = await freePort();
    const server = createServer({ name: "t", version: "1" });
    server.addTool({ name: "t", inputSchema: { type: "object" } }, () => ({ content: [] }));
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const http = await serveHttp(server, { port, ...oauthHttpOptions(server, { resource, issuers: `http://127.0.0.1:${deadPort}` }) });
    try {
      const token = await as.token(BOB, resource, "mcp:read");
      // A token naming the dead issuer (its signature cannot matter: no key can be had).
      const [header, , signature] = token.split(".");
      const payload = Buffer.from(JSON.stringify({ iss: `http://127.0.0.1:${deadPort}`, sub: "bob", aud: resource, exp: 4_000_000_000 })).toString("base64url");
      const answer = await post(http.url, request(1, "tools/list"), { authorization: `Bearer ${header}.${payload}.${signature}` });
      assert.equal(answer.status, 503);
      assert.equal(answer.headers.get("retry-after"), "5");
      assert.match(answer.headers.get("www-authenticate") ?? "", /resource_metadata=/);
      const again = await post(http.url, request(1, "tools/list"), { authorization: `Bearer ${header}.${payload}.${signature}` });
      assert.equal(again.status, 503);
    } finally {
      await http.close();
    }
  });

  test("stdio and in-process transports are unaffected: declared scopes apply only where OAuth does", async () => {
    const server = createServer({ name: "t", version: "1" });
    server.addTool({ name: "admin_reset", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "reset" }] }), { scopes: ["mcp:admin"] });
    const client = await connectTestClient(server);
    try {
      const result = await client.request("tools/call", { name: "admin_reset", arguments: {} });
      assert.deepEqual((result as { content: unknown }).content, [{ type: "text", text: "reset" }]);
    } finally {
      await client.close();
    }
  });
});

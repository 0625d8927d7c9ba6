/**
 * A project made with `create-mcp-handler --auth oauth`, built and started as `npm start`
 * would (`node dist/src/main.js`), against a real authorization server (oidc-provider on
 * loopback): its metadata, the 401 challenge for a missing, foreign-audience, expired or
 * forged token, tools listed with a good one, admin_reset shown only to a token carrying
 * mcp:admin and answered to any other as an unknown tool (2026-07-28 requests and a 2025-11-25
 * session), and likewise an admin prompt, resource template and ui:// view the test adds (get,
 * read, completion, a legacy subscription and a 2026-07-28 listen stream compared with an
 * unknown name's, byte for byte but for ids and the name),
 * the official 2.x client's own OAuth flow, the token on an HTTP+SSE stream and its POSTs, and
 * the one-line stop on a missing variable.
 * The project is not installed: it uses this checkout's node_modules (jose included).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname } from "node:path";
import { after, before, test } from "node:test";
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { generateKeyPair, SignJWT } from "jose";
import { freePort } from "../../../support/ports.js";
import { startAuthorizationServer, type AuthorizationServer, type TestClient } from "../../../support/oidc-provider.js";
import { mcpHeaders, post, request } from "../../../runtime/transports/http-helpers.js";
import { addAdminExtras, ADMIN_ENTRIES, checkLegacySession, legacySession, listedTo, listenAnswer, modernAnswer, PROBES } from "./admin-extras.js";
import { scaffoldProject, type ScaffoldedProject } from "../../scale/scaffolded.js";
import { explain, runCreate, startProcess, within } from "../../../cli/scaffold/helpers.js";

const READER: TestClient = { clientId: "reader", clientSecret: "reader-secret", scope: "mcp:read" };
const ADMIN: TestClient = { clientId: "admin", clientSecret: "admin-secret", scope: "mcp:read mcp:admin" };
const SHORT_LIVED: TestClient = { clientId: "short", clientSecret: "short-secret", scope: "mcp:read", tokenTtlSeconds: 1 };

let project: ScaffoldedProject | undefined;
let app: string;
let as: AuthorizationServer;
let url: string;
const stops: Array<() => Promise<unknown>> = [];

before(
  async () => {
    as = await startAuthorizationServer([READER, ADMIN, SHORT_LIVED]);
    project = scaffoldProject(["--transport", "http", "--auth", "oauth"], addAdminExtras);
    app = project.dir;
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    const server = startProcess(process.execPath, ["dist/src/main.js"], {
      cwd: app,
      env: { ...process.env, PORT: String(port), MCP_AUTH_ISSUER: as.issuer, MCP_PUBLIC_URL: url },
    });
    stops.push(() => server.stop());
    await server.waitFor(/serving MCP on/);
  },
  { timeout: 240_000 },
);

after(async () => {
  for (const stop of stops.splice(0).reverse()) await within(stop(), 5_000, undefined);
  await as?.close();
  project?.remove();
});

const listTools = () => request(1, "tools/list");
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function challenge(headers: Headers): Record<string, string> {
  const value = headers.get("www-authenticate") ?? "";
  assert.match(value, /^Bearer /);
  return Object.fromEntries([...value.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((match) => [match[1]!, match[2]!]));
}

function assertChallenged(answer: { status: number; headers: Headers }, error: string | undefined): void {
  assert.equal(answer.status, 401);
  const params = challenge(answer.headers);
  assert.equal(params["resource_metadata"], url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"));
  assert.equal(params["error"], error);
  assert.equal(params["scope"], "mcp:read", "the challenge names the scope a first token needs");
}

test("the scaffold serves its Protected Resource Metadata: resource, issuer, scopes", async () => {
  const metadata = await (await fetch(url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"))).json();
  assert.deepEqual(metadata, {
    resource: url,
    authorization_servers: [as.issuer],
    scopes_supported: ["mcp:admin", "mcp:read"],
    bearer_methods_supported: ["header"],
  });
});

test("no token, a foreign-audience token, an expired token and a forged one each get 401 with the challenge", { timeout: 30_000 }, async () => {
  assertChallenged(await post(url, listTools()), undefined);
  const foreign = await as.token(READER, "http://127.0.0.1:1/elsewhere", "mcp:read");
  assertChallenged(await post(url, listTools(), bearer(foreign)), "invalid_token");
  const { privateKey } = await generateKeyPair("RS256");
  const forged = await new SignJWT({ scope: "mcp:read mcp:admin", client_id: "reader" })
    .setProtectedHeader({ alg: "RS256", kid: as.kid })
    .setIssuer(as.issuer)
    .setAudience(url)
    .setSubject("reader")
    .setExpirationTime("5m")
    .sign(privateKey);
  assertChallenged(await post(url, listTools(), bearer(forged)), "invalid_token");
  const expiring = await as.token(SHORT_LIVED, url, "mcp:read");
  // exp is one second away; the scaffold allows the runtime's default 5 s of clock skew.
  await new Promise((resolve) => setTimeout(resolve, 7_100));
  assertChallenged(await post(url, listTools(), bearer(expiring)), "invalid_token");
});

/** The answer as its bytes, with the request's id and the tool's name written out: what must not tell a hidden tool from an unknown one. */
function normalized(text: string, id: number, name: string): string {
  return text.replaceAll(`"id":${id}`, '"id":0').replaceAll(name, "<name>");
}

/** A 2026-07-28 tools/call of `name` (its own id): status, content type and body bytes, normalized. */
async function modernCall(token: string, name: string, id: number): Promise<string> {
  const message = request(id, "tools/call", { name, arguments: {} });
  const answer = await fetch(url, { method: "POST", headers: { ...mcpHeaders(message), ...bearer(token) }, body: JSON.stringify(message) });
  return `${answer.status} ${answer.headers.get("content-type")} ${normalized(await answer.text(), id, name)}`;
}

test("a token without mcp:admin lists no admin_reset, and its call is answered byte for byte as an unknown tool's, with 2026-07-28 requests", async () => {
  const token = await as.token(READER, url, "mcp:read");
  const listed = await post(url, listTools(), bearer(token));
  assert.equal(listed.status, 200);
  const names = listed.body.result.tools.map((tool: { name: string }) => tool.name);
  assert.ok(names.includes("toggle_greet") && !names.includes("admin_reset"), names.join(", "));
  const hidden = await modernCall(token, "admin_reset", 2);
  assert.equal(hidden, await modernCall(token, "no_such_tool", 2));
  assert.doesNotMatch(hidden, /insufficient_scope|^403/);
});

test("a token with mcp:admin lists admin_reset and calls it, with 2026-07-28 requests", async () => {
  const token = await as.token(ADMIN, url, "mcp:read mcp:admin");
  const listed = await post(url, listTools(), bearer(token));
  assert.ok(listed.body.result.tools.some((tool: { name: string }) => tool.name === "admin_reset"));
  const reset = await post(url, request(2, "tools/call", { name: "admin_reset", arguments: {} }), bearer(token));
  assert.equal(reset.status, 200);
  assert.deepEqual(reset.body.result.content, [{ type: "text", text: "greet was removed" }]);
});

test("in a 2025-11-25 session, a token without mcp:admin lists no admin_reset and its call is answered as an unknown tool's; one with it lists and calls it", async () => {
  const reader = await legacySession(url, await as.token(READER, url, "mcp:read"));
  assert.ok(!(await reader.toolNames()).includes("admin_reset"));
  assert.equal(await reader.call("admin_reset"), await reader.call("no_such_tool"));
  const admin = await legacySession(url, await as.token(ADMIN, url, "mcp:read mcp:admin"));
  assert.ok((await admin.toolNames()).includes("admin_reset"));
  assert.match(await admin.call("admin_reset"), /greet was removed/);
});

test("a token without mcp:admin lists no admin prompt, template or view, and getting, reading or completing one is answered as an unknown one, with 2026-07-28 requests", async () => {
  const token = await as.token(READER, url, "mcp:read");
  const listed = await listedTo(url, token);
  assert.deepEqual(ADMIN_ENTRIES.filter((entry) => listed.includes(entry)), [], listed.join(", "));
  for (const probe of PROBES) {
    const hidden = await modernAnswer(url, token, probe.method, probe.params(probe.hidden), probe.hidden);
    assert.equal(hidden, await modernAnswer(url, token, probe.method, probe.params(probe.unknown), probe.unknown), probe.what);
  }
  const admin = await as.token(ADMIN, url, "mcp:read mcp:admin");
  const adminListed = await listedTo(url, admin);
  assert.deepEqual(ADMIN_ENTRIES.filter((entry) => !adminListed.includes(entry)), []);
  for (const probe of PROBES) {
    const answer = await modernAnswer(url, admin, probe.method, probe.params(probe.hidden), probe.hidden);
    assert.match(answer, /^200 .*"result"/, `${probe.what} with mcp:admin: ${answer}`);
  }
});

test("in a 2025-11-25 session a token without mcp:admin lists no admin prompt, template or view, and getting, reading, completing or subscribing to one is answered as an unknown one", async () => {
  await checkLegacySession(url, await as.token(READER, url, "mcp:read"), false);
  await checkLegacySession(url, await as.token(ADMIN, url, "mcp:read mcp:admin"), true);
});

test("a listen stream naming an admin view is answered to a token without mcp:admin as one naming an unknown URI, and opened for a token with it", async () => {
  const reader = await as.token(READER, url, "mcp:read");
  const hidden = await listenAnswer(url, reader, "ui://admin/panel");
  assert.equal(hidden, await listenAnswer(url, reader, "ui://admin/nothing"));
  assert.match(hidden, /^200 text\/event-stream /, hidden);
  const admin = await as.token(ADMIN, url, "mcp:read mcp:admin");
  // The scaffold's handler serves tool list changes only: the stream is opened (no 403) and honours those.
  assert.match(await listenAnswer(url, admin, "ui://admin/panel"), /^200 text\/event-stream .*"toolsListChanged":true/);
});

test(
  "over HTTP+SSE (2024-11-05's transport) the stream and every POST to it need the token: 401 with the challenge without one",
  { timeout: 30_000 },
  async () => {
    const sse = { accept: "text/event-stream" };
    assertChallenged(await fetch(url, { headers: sse }), undefined);
    const token = await as.token(READER, url, "mcp:read");
    const abort = new AbortController();
    const stream = await fetch(url, { headers: { ...sse, ...bearer(token) }, signal: abort.signal });
    try {
      assert.equal(stream.status, 200);
      const reader = stream.body!.getReader();
      let text = "";
      const readUntil = async (pattern: RegExp) => {
        while (!pattern.test(text)) {
          const chunk = await reader.read();
          if (chunk.done) throw new Error(`the stream ended before ${pattern}: ${text}`);
          text += new TextDecoder().decode(chunk.value);
        }
      };
      await readUntil(/\n\n/);
      const endpoint = new URL(/^data: (.*)$/m.exec(text)![1]!, url);
      // The message as a 2024-11-05 client sends it: no _meta, no MCP headers.
      const initialize = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "sse", version: "1" } },
      };
      const postInitialize = (headers: Record<string, string>) =>
        fetch(endpoint, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(initialize) });
      assertChallenged(await postInitialize({}), undefined);
      assert.equal((await postInitialize(bearer(token))).status, 202);
      await readUntil(/"protocolVersion":"2024-11-05"/); // initialize was answered on the stream
    } finally {
      abort.abort();
    }
  },
);

test("the official 2.x client completes the OAuth flow from the first 401, does not see admin_reset, and is refused it", { timeout: 30_000 }, async () => {
  const authProvider = new ClientCredentialsProvider({ clientId: READER.clientId, clientSecret: READER.clientSecret, expectedIssuer: as.issuer });
  const client = new Client({ name: "scaffold-oauth", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider }));
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === "toggle_greet"));
    assert.ok(!tools.some((tool) => tool.name === "admin_reset"));
    assert.equal(authProvider.tokens()?.scope, "mcp:read");
    await assert.rejects(client.callTool({ name: "admin_reset", arguments: {} }));
  } finally {
    await client.close();
  }
});

test("a missing MCP_AUTH_ISSUER or MCP_PUBLIC_URL stops the server at start with one line naming it", () => {
  for (const [missing, env] of [
    ["MCP_AUTH_ISSUER", { MCP_PUBLIC_URL: url }],
    ["MCP_PUBLIC_URL", { MCP_AUTH_ISSUER: as.issuer }],
  ] as const) {
    const { MCP_AUTH_ISSUER: _issuer, MCP_PUBLIC_URL: _url, ...rest } = process.env;
    const run = spawnSync(process.execPath, ["dist/src/main.js"], { cwd: app, env: { ...rest, ...env, PORT: "0" }, encoding: "utf8", timeout: 20_000 });
    assert.equal(run.status, 1, explain({ status: run.status, stdout: run.stdout, stderr: run.stderr }));
    assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`^error: ${missing} is not set: set it to `));
  }
});

test("--auth oauth with --transport stdio is refused in one line", () => {
  const run = runCreate(["other", "--yes", "--no-git", "--no-install", "--transport", "stdio", "--auth", "oauth"], dirname(app));
  assert.equal(run.status, 2, explain(run));
  assert.match(run.stderr, /--auth oauth protects the HTTP server/);
});

/**
 * A project made with `--auth oauth` is the same OAuth resource server through its fetch
 * entry (`dist/src/fetch.js`) as through `npm start`: served by Bun, Deno and workerd (the
 * Cloudflare Workers runtime, the entry bundled as wrangler would), against a real
 * authorization server (oidc-provider on loopback), it serves its metadata, challenges a
 * request without a token, lists tools for a valid one, and shows admin_reset (and the admin
 * prompt, template and ui:// view admin-extras.ts adds) only to a token carrying mcp:admin:
 * to any other none is listed, and calling, getting, reading or completing one is answered
 * byte for byte as an unknown name's, and so is a listen stream naming the view, with
 * 2026-07-28 requests; likewise in a 2025-11-25 session (which the fetch entry serves through
 * the same core as `npm start`), a subscription included. The project is not installed: it uses this checkout's node_modules.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startAuthorizationServer, type AuthorizationServer, type TestClient } from "../../../support/oidc-provider.js";
import { mcpHeaders, post, request } from "../../../runtime/transports/http-helpers.js";
import { FETCH_RUNTIMES, serveFetchEntry } from "./fetch-runtimes.js";
import { scaffoldProject, type ScaffoldedProject } from "../../scale/scaffolded.js";
import { within } from "../../../cli/scaffold/helpers.js";
import { addAdminExtras, ADMIN_ENTRIES, checkLegacySession, listedTo, listenAnswer, modernAnswer, PROBES } from "./admin-extras.js";

const READER: TestClient = { clientId: "reader", clientSecret: "reader-secret", scope: "mcp:read" };
const ADMIN: TestClient = { clientId: "admin", clientSecret: "admin-secret", scope: "mcp:read mcp:admin" };

let project: ScaffoldedProject | undefined;
let app: string;
let as: AuthorizationServer;
const stops: Array<() => Promise<unknown>> = [];

before(
  async () => {
    as = await startAuthorizationServer([READER, ADMIN]);
    project = scaffoldProject(["--transport", "http", "--auth", "oauth"], addAdminExtras);
    app = project.dir;
  },
  { timeout: 240_000 },
);

after(async () => {
  for (const stop of stops.splice(0).reverse()) await within(stop(), 5_000, undefined);
  await as?.close();
  project?.remove();
});

function challenge(headers: Headers): Record<string, string> {
  const value = headers.get("www-authenticate") ?? "";
  assert.match(value, /^Bearer /);
  return Object.fromEntries([...value.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((match) => [match[1]!, match[2]!]));
}

/** A 2026-07-28 tools/call of `tool`: status, content type and body bytes, the tool's name written out. */
async function callAnswer(url: string, token: string, tool: string): Promise<string> {
  const message = request(3, "tools/call", { name: tool, arguments: {} });
  const headers = { ...mcpHeaders(message), authorization: `Bearer ${token}` };
  const answer = await fetch(url, { method: "POST", headers, body: JSON.stringify(message) });
  return `${answer.status} ${answer.headers.get("content-type")} ${(await answer.text()).replaceAll(tool, "<name>")}`;
}

for (const name of Object.keys(FETCH_RUNTIMES)) {
  test(`served by ${name}: metadata, 401 without a token, tools with one, admin entries only with mcp:admin, both eras`, { timeout: 120_000 }, async () => {
    const server = await serveFetchEntry(name, app, (url) => ({ MCP_AUTH_ISSUER: as.issuer, MCP_PUBLIC_URL: url }));
    stops.push(() => server.stop());
    try {
      const { url } = server;
      const metadataUrl = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
      const metadata = (await (await fetch(metadataUrl)).json()) as { resource: string; authorization_servers: string[] };
      assert.equal(metadata.resource, url, server.stderr());
      assert.deepEqual(metadata.authorization_servers, [as.issuer]);

      const anonymous = await post(url, request(1, "tools/list"));
      assert.equal(anonymous.status, 401, server.stderr());
      assert.equal(challenge(anonymous.headers)["resource_metadata"], metadataUrl);

      const token = await as.token(READER, url, "mcp:read");
      const names = await listedTo(url, token);
      assert.ok(names.includes("toggle_greet"), `${names.join(", ")}\n${server.stderr()}`);
      assert.deepEqual(ADMIN_ENTRIES.filter((entry) => names.includes(entry)), [], names.join(", "));
      const hidden = await callAnswer(url, token, "admin_reset");
      assert.equal(hidden, await callAnswer(url, token, "no_such_tool"));
      assert.doesNotMatch(hidden, /insufficient_scope|^403/);
      for (const probe of PROBES) {
        const answer = await modernAnswer(url, token, probe.method, probe.params(probe.hidden), probe.hidden);
        assert.equal(answer, await modernAnswer(url, token, probe.method, probe.params(probe.unknown), probe.unknown), probe.what);
      }
      const hiddenListen = await listenAnswer(url, token, "ui://admin/panel");
      assert.equal(hiddenListen, await listenAnswer(url, token, "ui://admin/nothing"), "a listen stream naming the view");
      assert.match(hiddenListen, /^200 text\/event-stream /, hiddenListen);

      const admin = await as.token(ADMIN, url, "mcp:read mcp:admin");
      const adminNames = await listedTo(url, admin);
      assert.deepEqual(ADMIN_ENTRIES.filter((entry) => !adminNames.includes(entry)), []);
      assert.match(await callAnswer(url, admin, "admin_reset"), /greet was removed/);
      for (const probe of PROBES) {
        assert.match(await modernAnswer(url, admin, probe.method, probe.params(probe.hidden), probe.hidden), /^200 .*"result"/, probe.what);
      }
      assert.match(await listenAnswer(url, admin, "ui://admin/panel"), /^200 text\/event-stream .*"toolsListChanged":true/);

      await checkLegacySession(url, token, false);
      await checkLegacySession(url, admin, true);
    } finally {
      await server.stop();
    }
  });
}

/**
 * A project made with `--auth oauth` is the same OAuth resource server through its fetch
 * entry (`dist/src/fetch.js`) as through `npm start`: served by Bun, Deno and workerd (the
 * Cloudflare Workers runtime, the entry bundled as wrangler would), against a real
 * authorization server (oidc-provider on loopback), it serves its metadata, challenges a
 * request without a token, lists tools for a valid one and refuses admin_reset without
 * mcp:admin. The project is not installed: it uses this checkout's node_modules.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startAuthorizationServer, type AuthorizationServer, type TestClient } from "../../../support/oidc-provider.js";
import { post, request } from "../../../runtime/transports/http-helpers.js";
import { FETCH_RUNTIMES, serveFetchEntry } from "./fetch-runtimes.js";
import { scaffoldProject, type ScaffoldedProject } from "../../scale/scaffolded.js";
import { within } from "../../../cli/scaffold/helpers.js";

const READER: TestClient = { clientId: "reader", clientSecret: "reader-secret", scope: "mcp:read" };

let project: ScaffoldedProject | undefined;
let app: string;
let as: AuthorizationServer;
const stops: Array<() => Promise<unknown>> = [];

before(
  async () => {
    as = await startAuthorizationServer([READER]);
    project = scaffoldProject(["--transport", "http", "--auth", "oauth"]);
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

for (const name of Object.keys(FETCH_RUNTIMES)) {
  test(`served by ${name}: metadata, 401 without a token, tools with one, 403 insufficient_scope for admin_reset`, { timeout: 120_000 }, async () => {
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
      const listed = await post(url, request(2, "tools/list"), { authorization: `Bearer ${token}` });
      assert.equal(listed.status, 200, server.stderr());
      assert.ok(listed.body.result.tools.some((tool: { name: string }) => tool.name === "admin_reset"));

      const refused = await post(url, request(3, "tools/call", { name: "admin_reset", arguments: {} }), { authorization: `Bearer ${token}` });
      assert.equal(refused.status, 403);
      assert.equal(challenge(refused.headers)["error"], "insufficient_scope");
    } finally {
      await server.stop();
    }
  });
}

/**
 * The README's patterns for middleware and visibility, each as the README writes it (the
 * audit line goes to a recorded `log` instead of console.error): an audit log, a per-principal
 * quota on tools/call, and a multi-tenant server whose tenants see different tools. Tokens
 * come from a real authorization server (oidc-provider on loopback); the clients are the
 * official 1.x SDK client (a 2025-11-25 session) and the 2.x client pinned to 2026-07-28,
 * over loopback HTTP.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { createServer, McpError, oauthHttpOptions, serveHttp, TokenPrincipal, type HttpServerHandle, type Server } from "../../packages/runtime/src/index.js";
import { freePort } from "../support/ports.js";
import { startAuthorizationServer, type AuthorizationServer, type TestClient } from "../support/oidc-provider.js";

const ACME: TestClient = { clientId: "acme", clientSecret: "acme-secret", scope: "mcp:read" };
const GLOBEX: TestClient = { clientId: "globex", clientSecret: "globex-secret", scope: "mcp:read" };
const SLOW = { timeout: 60_000 };
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** The README's quota: QUOTA.calls tool calls per principal in each window. */
const QUOTA = { calls: 2, windowMs: 60_000 };

function installAudit(server: Server, log: (line: string) => void): void {
  server.use(async (ctx, next) => {
    const started = performance.now();
    try {
      return await next();
    } finally {
      log(JSON.stringify({ method: ctx.method, principal: ctx.principal, ms: performance.now() - started }));
    }
  });
}

function installQuota(server: Server): void {
  const windows = new Map<string, { startedAt: number; calls: number }>();
  server.use("tools/call", async (ctx, next) => {
    const who = ctx.principal instanceof TokenPrincipal ? ctx.principal.subject : "anonymous";
    const now = Date.now();
    let window = windows.get(who);
    if (window === undefined || now - window.startedAt >= QUOTA.windowMs) windows.set(who, (window = { startedAt: now, calls: 0 }));
    if (++window.calls > QUOTA.calls) {
      throw new McpError(-32000, "Quota exceeded", { retryAfterMs: window.startedAt + QUOTA.windowMs - now });
    }
    return next();
  });
}

function addTenantTools(server: Server): void {
  const isTenant = (tenant: string) => (principal: unknown) => principal instanceof TokenPrincipal && principal.clientId === tenant;
  server.addTool({ name: "acme_invoice", inputSchema: { type: "object" } }, () => text("invoice"), { visibility: { when: isTenant("acme") } });
  server.addTool({ name: "globex_report", inputSchema: { type: "object" } }, () => text("report"), { visibility: { when: isTenant("globex") } });
}

/** What each scenario asks of a client, whichever generation and era. */
interface AnyClient {
  tools(): Promise<string[]>;
  /** The call's text, or its error's code, message and data as JSON. */
  call(name: string): Promise<string>;
  close(): Promise<void>;
}

const errorText = ({ code, message, data }: any): string => JSON.stringify({ code, message, data });
const textOf = (result: { content?: unknown }): string => (result.content as Array<{ text: string }>).map((block) => block.text).join("|");

async function v1Client(url: string, token: string): Promise<AnyClient> {
  const client = new ClientV1({ name: "v1", version: "1.0.0" });
  await client.connect(new HttpV1(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return {
    tools: async () => (await client.listTools()).tools.map((tool) => tool.name),
    call: (name) => client.callTool({ name, arguments: {} }).then((result) => textOf(result as never), errorText),
    close: () => client.close(),
  };
}

async function v2Client(url: string, token: string): Promise<AnyClient> {
  const client = new ClientV2({ name: "v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new HttpV2(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return {
    tools: async () => (await client.listTools()).tools.map((tool) => tool.name),
    call: (name) => client.callTool({ name, arguments: {} }).then(textOf, errorText),
    close: () => client.close(),
  };
}

const CLIENTS: Array<[string, (url: string, token: string) => Promise<AnyClient>]> = [
  ["the 1.x SDK client (2025-11-25)", v1Client],
  ["the 2.x client pinned to 2026-07-28", v2Client],
];

/** A server with the README's patterns installed, served with OAuth on loopback. */
async function serve(as: AuthorizationServer, install: (server: Server) => void): Promise<HttpServerHandle> {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const server = createServer({ name: "patterns", version: "1.0.0" });
  server.addTool({ name: "greet", inputSchema: { type: "object" } }, () => text("hello"));
  install(server);
  return serveHttp(server, { port, ...oauthHttpOptions(server, { resource, issuers: as.issuer }) });
}

describe("the README's middleware and visibility patterns", () => {
  let as: AuthorizationServer;
  const tokenFor = (client: TestClient, http: HttpServerHandle) => as.token(client, http.url, client.scope);
  before(async () => (as = await startAuthorizationServer([ACME, GLOBEX])));
  after(() => as?.close());

  test("an audit middleware logs one line per request with its method, the principal the transport vouched for and its time", SLOW, async () => {
    const lines: string[] = [];
    const http = await serve(as, (server) => installAudit(server, (line) => lines.push(line)));
    try {
      for (const [label, connect] of CLIENTS) {
        lines.length = 0;
        const client = await connect(http.url, await tokenFor(ACME, http));
        try {
          assert.equal(await client.call("greet"), "hello");
        } finally {
          await client.close();
        }
        const call = lines.map((line) => JSON.parse(line)).find((entry) => entry.method === "tools/call");
        assert.ok(call, `${label}: ${lines.join("\n")}`);
        assert.equal(call.principal.clientId, "acme", label);
        assert.equal(typeof call.ms, "number", label);
      }
    } finally {
      await http.close();
    }
  });

  test("a per-principal quota refuses a caller's calls beyond its window with a protocol error and retry advice, and not another caller's", SLOW, async () => {
    for (const [label, connect] of CLIENTS) {
      const http = await serve(as, installQuota);
      const acme = await connect(http.url, await tokenFor(ACME, http));
      const globex = await connect(http.url, await tokenFor(GLOBEX, http));
      try {
        for (let call = 0; call < QUOTA.calls; call++) assert.equal(await acme.call("greet"), "hello", label);
        const refused = await acme.call("greet");
        const { code, message, data } = JSON.parse(refused);
        assert.equal(code, -32000, `${label}: ${refused}`);
        assert.match(message, /Quota exceeded/);
        const { retryAfterMs } = data;
        assert.ok(retryAfterMs > 0 && retryAfterMs <= QUOTA.windowMs, `${label}: retry advice within the window, got ${retryAfterMs}`);
        assert.equal(await globex.call("greet"), "hello", `${label}: another principal has its own quota`);
      } finally {
        await acme.close();
        await globex.close();
        await http.close();
      }
    }
  });

  test("in a multi-tenant server each tenant lists its own tools, and a call of another tenant's is answered as an unknown tool's", SLOW, async () => {
    const http = await serve(as, addTenantTools);
    try {
      for (const [label, connect] of CLIENTS) {
        const acme = await connect(http.url, await tokenFor(ACME, http));
        const globex = await connect(http.url, await tokenFor(GLOBEX, http));
        try {
          assert.deepEqual((await acme.tools()).sort(), ["acme_invoice", "greet"], label);
          assert.deepEqual((await globex.tools()).sort(), ["globex_report", "greet"], label);
          assert.equal(await acme.call("acme_invoice"), "invoice", label);
          const foreign = (await acme.call("globex_report")).replaceAll("globex_report", "<name>");
          assert.equal(foreign, (await acme.call("no_such_tool")).replaceAll("no_such_tool", "<name>"), label);
          assert.equal(JSON.parse(foreign).code, -32602, `${label}: ${foreign}`);
        } finally {
          await acme.close();
          await globex.close();
        }
      }
    } finally {
      await http.close();
    }
  });
});

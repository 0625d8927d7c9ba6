/**
 * Who sees what: a primitive with `visibility` is listed only to the principals it admits,
 * and to the others it is answered exactly as a name that does not exist. Tokens come from a
 * real authorization server (oidc-provider on loopback); the clients are the official 1.x
 * SDK client (a 2025-11-25 session) and the 2.x client with its defaults and pinned to
 * 2026-07-28, over loopback HTTP.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, InMemoryResponseCacheStore, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { createServer, oauthHttpOptions, serveHttp, toFetchHandler, type FetchHandler, type HttpServerHandle } from "../../packages/runtime/src/index.js";
import { TokenPrincipal } from "../../packages/runtime/src/auth/principal.js";
import { freePort } from "../support/ports.js";
import { startAuthorizationServer, type AuthorizationServer, type TestClient } from "../support/oidc-provider.js";
import { recordingHandler } from "../support/recording-handler.js";
import { mcpHeaders, openListen, post, request } from "./transports/http-helpers.js";

const READER: TestClient = { clientId: "reader", clientSecret: "reader-secret", scope: "mcp:read" };
const ADMIN: TestClient = { clientId: "admin", clientSecret: "admin-secret", scope: "mcp:read mcp:admin" };
const ALPHA: TestClient = { clientId: "alpha", clientSecret: "alpha-secret", scope: "mcp:read" };
const SLOW = { timeout: 60_000 };
const TOOLS_PAGE_SIZE = 2;
/** Tools t0..t5: the odd ones only tenant alpha sees. */
const NUMBERED_TOOLS = 6;
const MAX_PAGES = 20;

const isAlpha = (principal: unknown): boolean => principal instanceof TokenPrincipal && principal.clientId === "alpha";
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

let as: AuthorizationServer;
let http: HttpServerHandle;
let resource: string;
/** The same server behind the fetch handler (Bun, Deno, Workers), called in process. */
let fetchHandler: FetchHandler;
const ran: string[] = [];

before(async () => {
  as = await startAuthorizationServer([READER, ADMIN, ALPHA]);
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  const server = createServer({
    name: "visibility-test",
    version: "1.0.0",
    // Public hints on purpose: the tools list is filtered, so its answers must say "private" anyway.
    lists: { tools: { pageSize: TOOLS_PAGE_SIZE, cacheScope: "public", ttlMs: 60_000 } },
  });
  server.addTool({ name: "greet", inputSchema: { type: "object" } }, () => text("hello"));
  server.addTool({ name: "admin_reset", inputSchema: { type: "object" } }, () => (ran.push("admin_reset"), text("reset")), {
    scopes: ["mcp:admin"],
    visibility: { byScopes: true },
  });
  for (let index = 0; index < NUMBERED_TOOLS; index++) {
    const options = index % 2 === 1 ? { visibility: { when: isAlpha } } : {};
    server.addTool({ name: `t${index}`, inputSchema: { type: "object" } }, () => text(`t${index}`), options);
  }
  server.addPrompt({ name: "hello" }, () => ({ messages: [] }));
  server.addPrompt({ name: "alpha_brief", arguments: [{ name: "topic" }] }, () => (ran.push("alpha_brief"), { messages: [] }), {
    visibility: { when: isAlpha },
    complete: { topic: () => (ran.push("topic"), ["budget"]) },
  });
  server.addResource({ uri: "doc://public", name: "public" }, () => "hello");
  server.addResource({ uri: "vault://gold", name: "gold" }, () => (ran.push("vault"), "bars"), { scopes: ["mcp:admin"], visibility: { byScopes: true } });
  server.addSubscriptionHandler(recordingHandler().handler);
  server.addResourceTemplate({ uriTemplate: "ledger://{id}", name: "ledger" }, () => (ran.push("ledger"), "balance"), {
    visibility: { when: isAlpha },
    complete: { id: () => (ran.push("id"), ["7"]) },
  });
  http = await serveHttp(server, { port, ...oauthHttpOptions(server, { resource, issuers: as.issuer }) });
  fetchHandler = toFetchHandler(server, oauthHttpOptions(server, { resource, issuers: as.issuer }));
});

after(async () => {
  await http?.close();
  await as?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const tokenOf = (client: TestClient) => as.token(client, resource, client.scope);

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

/** What every scenario needs of a client, whichever generation and era. */
interface AnyClient {
  tools(): Promise<string[]>;
  prompts(): Promise<string[]>;
  templates(): Promise<string[]>;
  /** The error a call of the tool is answered with, its name written as <name>; "served" when it ran. */
  callError(name: string): Promise<string>;
  close(): Promise<void>;
}

const errorText = (error: unknown, name: string): string => {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return `${String(code)} ${String(message).replaceAll(name, "<name>")}`;
};

async function v1Client(token: string): Promise<AnyClient> {
  const client = new ClientV1({ name: "v1", version: "1.0.0" });
  await client.connect(new HttpV1(new URL(http.url), { requestInit: { headers: bearer(token) } }));
  const all = async <T>(page: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string | undefined }>): Promise<T[]> => {
    const items: T[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const answer = await page(cursor);
      items.push(...answer.items);
      cursor = answer.nextCursor;
      if (cursor === undefined) return items;
    }
    throw new Error("the list did not end");
  };
  return {
    tools: () =>
      all(async (cursor) => {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        return { items: page.tools.map((tool) => tool.name), nextCursor: page.nextCursor };
      }),
    prompts: async () => (await client.listPrompts()).prompts.map((prompt) => prompt.name),
    templates: async () => (await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate),
    callError: (name) =>
      client.callTool({ name, arguments: {} }).then(
        () => "served",
        (error: unknown) => errorText(error, name),
      ),
    close: () => client.close(),
  };
}

async function v2Client(token: string, modern: boolean, cache?: { store: InMemoryResponseCacheStore; partition: string }): Promise<AnyClient> {
  const options = {
    ...(modern ? { versionNegotiation: { mode: { pin: "2026-07-28" as const } } } : {}),
    ...(cache === undefined ? {} : { responseCacheStore: cache.store, cachePartition: cache.partition }),
  };
  const client = new ClientV2({ name: "v2", version: "1.0.0" }, options);
  await client.connect(new HttpV2(new URL(http.url), { requestInit: { headers: bearer(token) } }));
  return {
    // With no cursor the 2.x client walks every page itself.
    tools: async () => (await client.listTools()).tools.map((tool) => tool.name),
    prompts: async () => (await client.listPrompts()).prompts.map((prompt) => prompt.name),
    templates: async () => (await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate),
    callError: (name) =>
      client.callTool({ name, arguments: {} }).then(
        () => "served",
        (error: unknown) => errorText(error, name),
      ),
    close: () => client.close(),
  };
}

const CLIENTS: Array<[string, (token: string) => Promise<AnyClient>]> = [
  ["the 1.x SDK client (2025-11-25)", (token) => v1Client(token)],
  ["the 2.x client with its defaults", (token) => v2Client(token, false)],
  ["the 2.x client pinned to 2026-07-28", (token) => v2Client(token, true)],
];

const EVERYONES_TOOLS = ["greet", "t0", "t2", "t4"];

describe("visibility: each list holds what its principal may see", () => {
  for (const [label, connect] of CLIENTS) {
    test(`${label}: a token without mcp:admin lists no admin tool, and its call is answered as an unknown tool's`, SLOW, async () => {
      ran.length = 0;
      const reader = await connect(await tokenOf(READER));
      try {
        assert.deepEqual((await reader.tools()).sort(), EVERYONES_TOOLS);
        assert.equal(await reader.callError("admin_reset"), await reader.callError("no_such_tool"));
        assert.match(await reader.callError("admin_reset"), /^-32602 /);
        assert.deepEqual(ran, []);
      } finally {
        await reader.close();
      }
      const admin = await connect(await tokenOf(ADMIN));
      try {
        assert.deepEqual((await admin.tools()).sort(), ["admin_reset", ...EVERYONES_TOOLS]);
        assert.equal(await admin.callError("admin_reset"), "served");
        assert.deepEqual(ran, ["admin_reset"]);
      } finally {
        await admin.close();
      }
    });

    test(`${label}: a predicate hides a prompt and a resource template from one principal and shows them to another`, SLOW, async () => {
      const reader = await connect(await tokenOf(READER));
      try {
        assert.deepEqual(await reader.prompts(), ["hello"]);
        assert.deepEqual(await reader.templates(), []);
      } finally {
        await reader.close();
      }
      const alpha = await connect(await tokenOf(ALPHA));
      try {
        assert.deepEqual(await alpha.prompts(), ["hello", "alpha_brief"]);
        assert.deepEqual(await alpha.templates(), ["ledger://{id}"]);
        assert.deepEqual((await alpha.tools()).sort(), ["greet", "t0", "t1", "t2", "t3", "t4", "t5"]);
      } finally {
        await alpha.close();
      }
    });
  }

  test("a get, read or completion of a hidden prompt or template is answered byte for byte as an unknown one's", SLOW, async () => {
    ran.length = 0;
    const reader = bearer(await tokenOf(READER));
    const same = async (hidden: object, unknown: object, names: [string, string]) => {
      const [a, b] = [await post(http.url, hidden, reader), await post(http.url, unknown, reader)];
      assert.equal(a.status, b.status);
      assert.notEqual(a.status, 403, "answered as not found, never insufficient_scope");
      assert.equal(JSON.stringify(a.body).replaceAll(names[0], "<name>"), JSON.stringify(b.body).replaceAll(names[1], "<name>"));
    };
    await same(request(1, "prompts/get", { name: "alpha_brief" }), request(1, "prompts/get", { name: "no_such" }), ["alpha_brief", "no_such"]);
    await same(request(2, "resources/read", { uri: "ledger://7" }), request(2, "resources/read", { uri: "nowhere://7" }), ["ledger", "nowhere"]);
    const complete = (ref: object, name: string) => request(3, "completion/complete", { ref, argument: { name, value: "" } });
    await same(complete({ type: "ref/prompt", name: "alpha_brief" }, "topic"), complete({ type: "ref/prompt", name: "no_such" }, "topic"), [
      "alpha_brief",
      "no_such",
    ]);
    await same(complete({ type: "ref/resource", uri: "ledger://{id}" }, "id"), complete({ type: "ref/resource", uri: "nowhere://{id}" }, "id"), [
      "ledger",
      "nowhere",
    ]);
    await same(request(4, "tools/call", { name: "admin_reset", arguments: {} }), request(4, "tools/call", { name: "no_such", arguments: {} }), [
      "admin_reset",
      "no_such",
    ]);
    assert.deepEqual(ran, [], "no hidden handler or completer ran");
    const alpha = bearer(await tokenOf(ALPHA));
    const read = await post(http.url, request(5, "resources/read", { uri: "ledger://7" }), alpha);
    assert.equal(read.body.result.contents[0].text, "balance");
    const completed = await post(http.url, complete({ type: "ref/prompt", name: "alpha_brief" }, "topic"), alpha);
    assert.deepEqual(completed.body.result.completion.values, ["budget"]);
  });

  test("over the fetch handler, a 2026-07-28 request lists what its principal may see and a hidden tool is called as an unknown one", SLOW, async () => {
    ran.length = 0;
    const send = async (message: object, token: string) => {
      const headers = { ...mcpHeaders(message), ...bearer(token) };
      const response = await fetchHandler(new Request(resource, { method: "POST", headers, body: JSON.stringify(message) }));
      return { status: response.status, text: await response.text() };
    };
    const reader = await tokenOf(READER);
    const listed = JSON.parse((await send(request(1, "prompts/list"), reader)).text);
    assert.deepEqual(
      listed.result.prompts.map((prompt: { name: string }) => prompt.name),
      ["hello"],
    );
    const hidden = await send(request(2, "tools/call", { name: "admin_reset", arguments: {} }), reader);
    const unknown = await send(request(2, "tools/call", { name: "no_such", arguments: {} }), reader);
    assert.equal(hidden.status, unknown.status);
    assert.equal(hidden.text.replaceAll("admin_reset", "<name>"), unknown.text.replaceAll("no_such", "<name>"));
    assert.deepEqual(ran, []);
    const alpha = JSON.parse((await send(request(3, "prompts/list"), await tokenOf(ALPHA))).text);
    assert.deepEqual(
      alpha.result.prompts.map((prompt: { name: string }) => prompt.name),
      ["hello", "alpha_brief"],
    );
  });

  test("a listen filter or a legacy subscription naming a hidden resource is answered as for an unknown URI, never 403", SLOW, async () => {
    ran.length = 0;
    const reader = await tokenOf(READER);
    const read = await post(http.url, request(1, "resources/read", { uri: "vault://gold" }), bearer(reader));
    assert.match(JSON.stringify(read.body.error), /Resource not found: vault:\/\/gold/);
    const listens = [await openListen(http.url, 2, { resourceSubscriptions: ["vault://gold"] }, bearer(reader))];
    listens.push(await openListen(http.url, 3, { resourceSubscriptions: ["nowhere://gold"] }, bearer(reader)));
    assert.deepEqual(
      listens.map((listen) => listen.status),
      [200, 200],
    );
    listens.forEach((listen) => listen.close());
    const inSession = await legacySession(reader);
    const subscribe = async (id: number, uri: string) => {
      const body = JSON.stringify({ jsonrpc: "2.0", id, method: "resources/subscribe", params: { uri } });
      const answer = await fetch(http.url, { method: "POST", headers: inSession, body });
      return `${answer.status} ${(await answer.text()).replaceAll(uri, "<uri>")}`;
    };
    assert.equal(await subscribe(4, "vault://gold"), await subscribe(4, "nowhere://gold"));
    assert.deepEqual(ran, []);
  });

  test("pagination over a filtered list pages through what the principal sees, each item once", SLOW, async () => {
    for (const [client, expected] of [
      [READER, EVERYONES_TOOLS],
      [ALPHA, ["greet", "t0", "t1", "t2", "t3", "t4", "t5"]],
    ] as const) {
      const headers = bearer(await tokenOf(client));
      const names: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const answer = await post(http.url, request(pages, "tools/list", cursor === undefined ? {} : { cursor }), headers);
        const page = answer.body.result;
        assert.ok(page.tools.length <= TOOLS_PAGE_SIZE);
        if (page.nextCursor !== undefined) assert.equal(page.tools.length, TOOLS_PAGE_SIZE, "only the last page is short");
        names.push(...page.tools.map((tool: { name: string }) => tool.name));
        cursor = page.nextCursor;
      } while (cursor !== undefined && ++pages < MAX_PAGES);
      assert.deepEqual(names, expected);
    }
  });

  test("a request in a legacy session is judged by the session's principal, and still held to its own token's scopes", SLOW, async () => {
    ran.length = 0;
    const wide = await tokenOf(ADMIN);
    const narrow = await as.token(ADMIN, resource, "mcp:read"); // the same client, so the same session owner
    const inSession = await legacySession(wide);
    const call = (id: number, token: string) =>
      fetch(http.url, {
        method: "POST",
        headers: { ...inSession, ...bearer(token) },
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "admin_reset", arguments: {} } }),
      });
    const refused = await call(2, narrow);
    await refused.body?.cancel();
    assert.equal(refused.status, 403, "the session sees admin_reset, so the narrower token is refused for lacking its scope");
    assert.deepEqual(ran, []);
    const served = await call(3, wide);
    assert.equal(served.status, 200);
    assert.match(await served.text(), /reset/);
    assert.deepEqual(ran, ["admin_reset"]);
  });

  test("a filtered list is never cached as public: one principal's list is not served to another from a shared cache", SLOW, async () => {
    const headers = bearer(await tokenOf(READER));
    const tools = await post(http.url, request(1, "tools/list"), headers);
    assert.equal(tools.body.result.cacheScope, "private");
    const store = new InMemoryResponseCacheStore();
    const admin = await v2Client(await tokenOf(ADMIN), true, { store, partition: "admin" });
    const reader = await v2Client(await tokenOf(READER), true, { store, partition: "reader" });
    try {
      assert.ok((await admin.tools()).includes("admin_reset"));
      assert.deepEqual((await reader.tools()).sort(), EVERYONES_TOOLS);
    } finally {
      await admin.close();
      await reader.close();
    }
  });
});

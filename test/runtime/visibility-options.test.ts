/**
 * The `visibility` option itself: checked when a primitive is added, read from any principal
 * an `authenticate` hook vouches for (not only OAuth's), and a predicate that throws hides its
 * entry rather than failing the list. Over loopback HTTP with raw 2026-07-28 requests.
 */
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { after, before, describe, test } from "node:test";
import { createServer, serveHttp, type HttpServerHandle } from "../../packages/runtime/src/index.js";
import { freePort } from "../support/ports.js";
import { post, request } from "./transports/http-helpers.js";

/** What this test's `authenticate` vouches for: the tenant and scopes its headers name. */
interface HeaderPrincipal {
  readonly tenant: string;
  readonly scopes: readonly string[];
}

let http: HttpServerHandle;

before(async () => {
  const server = createServer({ name: "visibility-options", version: "1.0.0", lists: { resources: { cacheScope: "public" } } });
  server.addResource({ uri: "doc://open", name: "open" }, () => "hello");
  server.addTool({ name: "open", inputSchema: { type: "object" } }, () => ({ content: [] }));
  server.addTool({ name: "wipe", inputSchema: { type: "object" } }, () => ({ content: [] }), { scopes: ["ops:wipe"], visibility: { byScopes: true } });
  server.addTool({ name: "broken", inputSchema: { type: "object" } }, () => ({ content: [] }), {
    visibility: {
      when: () => {
        throw new Error("the role store is down");
      },
    },
  });
  server.addTool({ name: "acme_only", inputSchema: { type: "object" } }, () => ({ content: [] }), {
    visibility: { when: (principal) => (principal as HeaderPrincipal | undefined)?.tenant === "acme" },
  });
  const port = await freePort();
  const authenticate = (req: IncomingMessage): HeaderPrincipal => ({
    tenant: String(req.headers["x-tenant"] ?? ""),
    scopes: String(req.headers["x-scopes"] ?? "")
      .split(" ")
      .filter(Boolean),
  });
  http = await serveHttp(server, { port, authenticate });
});

after(async () => {
  await http?.close();
});

async function toolNames(headers: Record<string, string>): Promise<string[]> {
  const answer = await post(http.url, request(1, "tools/list"), headers);
  return answer.body.result.tools.map((tool: { name: string }) => tool.name);
}

describe("the visibility option", () => {
  test("byScopes reads the scopes of any principal an authenticate hook returns, and a predicate its other fields", async () => {
    assert.deepEqual(await toolNames({ "x-tenant": "globex" }), ["open"]);
    assert.deepEqual(await toolNames({ "x-tenant": "globex", "x-scopes": "ops:wipe" }), ["open", "wipe"]);
    assert.deepEqual(await toolNames({ "x-tenant": "acme" }), ["open", "acme_only"]);
  });

  test("a list nothing is hidden from keeps the server's cache hints", async () => {
    const answer = await post(http.url, request(3, "resources/list"), { "x-tenant": "acme" });
    assert.equal(answer.body.result.cacheScope, "public");
  });

  test("a predicate that throws hides its entry; the list is still served", async () => {
    const names = await toolNames({ "x-tenant": "acme", "x-scopes": "ops:wipe" });
    assert.deepEqual(names, ["open", "wipe", "acme_only"]);
    const called = await post(http.url, request(2, "tools/call", { name: "broken", arguments: {} }), { "x-tenant": "acme" });
    assert.match(called.body.error.message, /^Unknown tool: broken/);
  });

  test("a malformed visibility option fails the registration", () => {
    const server = createServer({ name: "malformed", version: "1.0.0" });
    const when = "admins" as unknown as (principal: unknown) => boolean;
    assert.throws(() => server.addTool({ name: "t", inputSchema: { type: "object" } }, () => ({ content: [] }), { visibility: { when } }), {
      name: "TypeError",
      message: /addTool t: visibility\.when must be a function/,
    });
    assert.throws(() => server.addPrompt({ name: "p" }, () => ({ messages: [] }), { visibility: null as never }), /addPrompt p: visibility must be an object/);
  });
});

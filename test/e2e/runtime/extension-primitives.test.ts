/**
 * A runtime generated with MCP Apps (`--extension @modelcontextprotocol/ext-apps`) offers a tool
 * or resource whose `_meta` holds the extension's key (`ui`) only to clients that declare the
 * extension, in either era; one generated without it (this repository's) offers everything.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as OfficialClient, StreamableHTTPClientTransport as OfficialHttpTransport } from "@modelcontextprotocol/client";
import * as jose from "jose";
import { repoRoot, schemaPath } from "../../support/schemas.js";
import { startAuthorizationServer, type TestClient } from "../../support/oidc-provider.js";
import { freePort } from "../../support/ports.js";
import { meta, post } from "../../runtime/transports/http-helpers.js";
import { createServer as createPlainServer } from "../../../packages/runtime/src/index.js";
import { connectTestClient as connectPlainClient } from "../../../packages/runtime/src/testing/index.js";

const UI = "io.modelcontextprotocol/ui";
const MIME = "text/html;profile=mcp-app";
const VIEW = "ui://clock/view.html";
const T = { timeout: 120_000 };
const READER: TestClient = { clientId: "reader", clientSecret: "reader-secret", scope: "mcp:read" };

type Runtime = typeof import("../../../packages/runtime/src/index.js");
type Testing = typeof import("../../../packages/runtime/src/testing/index.js");

function appServer(runtime: Pick<Runtime, "createServer">) {
  const server = runtime.createServer({ name: "apps", version: "1.0.0" });
  server.addTool({ name: "plain", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "plain" }] }));
  server.addTool({ name: "clock", inputSchema: { type: "object" }, _meta: { ui: { resourceUri: VIEW } } }, () => ({
    content: [{ type: "text", text: "12:00" }],
  }));
  server.addResource({ uri: VIEW, name: "clock-view", mimeType: MIME, _meta: { ui: {} } }, () => "<!doctype html><p>clock</p>");
  server.addResource({ uri: "app://about", name: "about" }, () => "about");
  return server;
}

describe("primitives of an extension, on a runtime generated with MCP Apps", T, () => {
  let dir: string;
  let runtime: Runtime;
  let testing: Testing;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "mcp-gen-apps-runtime-"));
    const args = [
      "types",
      "--schema",
      schemaPath("2026-07-28"),
      "--out",
      dir,
      "--extension",
      "io.modelcontextprotocol/tasks",
      "--extension",
      "@modelcontextprotocol/ext-apps",
    ];
    const run = spawnSync(process.execPath, ["--import", "tsx", "cli/main.ts", ...args], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, MCP_SCHEMAS_DIR: "" },
    });
    assert.equal(run.status, 0, run.stderr);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    runtime = await import(pathToFileURL(join(dir, "v2607", "runtime", "index.ts")).href);
    testing = await import(pathToFileURL(join(dir, "v2607", "runtime", "testing", "index.ts")).href);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a client declaring the extension lists the linked tool and reads the view with the extension's MIME type", async () => {
    const server = appServer(runtime);
    const client = await testing.connectTestClient(server, { clientCapabilities: { extensions: { [UI]: { mimeTypes: [MIME] } } } });
    try {
      const { tools } = await client.request("tools/list", {});
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ["plain", "clock"],
      );
      assert.deepEqual(tools[1]._meta, { ui: { resourceUri: VIEW } });
      const read = await client.request("resources/read", { uri: VIEW });
      assert.equal(read.contents[0].mimeType, MIME);
      const { resources } = await client.request("resources/list", {});
      assert.deepEqual(
        resources.map((resource) => resource.uri),
        [VIEW, "app://about"],
      );
      const called = await client.request("tools/call", { name: "clock", arguments: {} });
      assert.deepEqual(called.content, [{ type: "text", text: "12:00" }]);
      const discover = await client.request("server/discover", {});
      assert.deepEqual((discover.capabilities as { extensions?: object }).extensions, { [UI]: {} }, "the extension in use is advertised");
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("a client without the extension does not see the tool or the view: not listed, not callable, not readable", async () => {
    const server = appServer(runtime);
    const client = await testing.connectTestClient(server);
    try {
      assert.deepEqual(
        (await client.request("tools/list", {})).tools.map((tool) => tool.name),
        ["plain"],
      );
      assert.deepEqual(
        (await client.request("resources/list", {})).resources.map((resource) => resource.uri),
        ["app://about"],
      );
      await assert.rejects(client.request("tools/call", { name: "clock", arguments: {} }), { code: -32602, message: /Unknown tool: clock/ });
      await assert.rejects(client.request("resources/read", { uri: VIEW }), { code: -32602, message: /Resource not found/ });
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("a legacy client (the 1.x SDK over initialize, Streamable HTTP) sees the tool only when its capabilities declare the extension", async () => {
    for (const declared of [true, false]) {
      const server = appServer(runtime);
      const handle = await runtime.serveHttp(server, { host: "127.0.0.1", port: 0 });
      const capabilities = declared ? { extensions: { [UI]: { mimeTypes: [MIME] } } } : {};
      const client = new Client({ name: "legacy", version: "1.0.0" }, { capabilities });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
        const names = (await client.listTools()).tools.map((tool) => tool.name);
        assert.deepEqual(names, declared ? ["plain", "clock"] : ["plain"], `declared: ${declared}`);
      } finally {
        await client.close();
        await handle.close();
        await server.close();
      }
    }
  });

  it("the official 2.x client (default options, Streamable HTTP) sees the tool's link and reads the view only when it declares the extension", async () => {
    for (const declared of [true, false]) {
      const server = appServer(runtime);
      const handle = await runtime.serveHttp(server, { host: "127.0.0.1", port: 0 });
      const capabilities = declared ? { extensions: { [UI]: { mimeTypes: [MIME] } } } : {};
      const client = new OfficialClient({ name: "official", version: "2.0.0" }, { capabilities });
      try {
        await client.connect(new OfficialHttpTransport(new URL(handle.url)));
        const tools = (await client.listTools()).tools;
        if (declared) {
          assert.deepEqual(tools.find((tool) => tool.name === "clock")?._meta, { ui: { resourceUri: VIEW } });
          assert.equal((await client.readResource({ uri: VIEW })).contents[0]?.mimeType, MIME);
        } else {
          assert.deepEqual(
            tools.map((tool) => tool.name),
            ["plain"],
          );
          await assert.rejects(client.readResource({ uri: VIEW }));
        }
      } finally {
        await client.close();
        await handle.close();
        await server.close();
      }
    }
  });

  it("a URI resolves to exactly one registration, whose scopes decide: a static view of MCP Apps and a scoped template of the same URI", async () => {
    const as = await startAuthorizationServer([READER]);
    const server = runtime.createServer({ name: "apps", version: "1.0.0" });
    server.addResource({ uri: "ui://one/view.html", name: "one", mimeType: MIME, _meta: { ui: {} } }, () => "view one");
    server.addResourceTemplate({ uriTemplate: "ui://one/{page}", name: "one-pages" }, () => "scoped one", { scopes: ["mcp:admin"] });
    server.addResource({ uri: "ui://two/view.html", name: "two", mimeType: MIME, _meta: { ui: {} } }, () => "scoped view two", { scopes: ["mcp:admin"] });
    server.addResourceTemplate({ uriTemplate: "ui://two/{page}", name: "two-pages" }, () => "open two");
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const handle = await runtime.serveHttp(server, { port, ...runtime.oauthHttpOptions(server, { resource, issuers: as.issuer, jose }) });
    try {
      const token = await as.token(READER, resource, "mcp:read");
      const read = (uri: string, apps: boolean) => {
        const capabilities = apps ? { extensions: { [UI]: { mimeTypes: [MIME] } } } : {};
        const message = {
          jsonrpc: "2.0",
          id: 1,
          method: "resources/read",
          params: { uri, _meta: meta({ "io.modelcontextprotocol/clientCapabilities": capabilities }) },
        };
        return post(handle.url, message, { authorization: `Bearer ${token}` });
      };
      // Without the extension the templates serve these URIs, so theirs are the scopes checked.
      assert.equal((await read("ui://one/view.html", false)).status, 403);
      const open = await read("ui://two/view.html", false);
      assert.equal(open.status, 200);
      assert.equal(open.body.result.contents[0].text, "open two");
      // With it, the static views serve them.
      const view = await read("ui://one/view.html", true);
      assert.equal(view.status, 200);
      assert.equal(view.body.result.contents[0].text, "view one");
      assert.equal((await read("ui://two/view.html", true)).status, 403);
    } finally {
      await handle.close();
      await server.close();
      await as.close();
    }
  });
});

it("a runtime generated without MCP Apps (this repository's) offers a tool with _meta.ui to every client", async () => {
  const server = appServer({ createServer: createPlainServer });
  const client = await connectPlainClient(server);
  try {
    assert.deepEqual(
      (await client.request("tools/list", {})).tools.map((tool) => tool.name),
      ["plain", "clock"],
    );
  } finally {
    await client.close();
    await server.close();
  }
});

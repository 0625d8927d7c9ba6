/**
 * `mcp-gen listen` against servers that speak 2025-11-25: the runtime's dual-era server
 * asked with --legacy, 1.x SDK servers (HTTP and stdio) that do not know server/discover
 * (the fallback), and a modern-only server refusing the legacy session.
 */
import assert from "node:assert/strict";
import { createServer as createHttpServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import { LEGACY_VERSION, PROTOCOL_VERSION } from "../../../../generated/index.js";
import { createServer, InProcessEventSource } from "../../../../packages/runtime/src/index.js";
import { serveHttp } from "../../../../packages/runtime/src/transports/http-server.js";
import { createFanoutServer, type FanoutTopics } from "../../../support/fanout-app.js";
import { startFastMcp } from "../../../support/fastmcp-server.js";
import { until } from "../../../support/runtime-peer.js";
import { repoRoot } from "../../../support/schemas.js";
import { startSdk1Http } from "../../../cli/listen/fixtures/sdk1-http.js";
import { runListen } from "./run-listen.js";

const T = { timeout: 60_000 };
const SDK1_STDIO = join(repoRoot, "test/cli/listen/fixtures/sdk1-stdio-server.ts");

describe("mcp-gen listen against a 2025-11-25 server", () => {
  it("--legacy on the dual-era runtime: initialize, subscribe, the GET stream's notifications as asked, and DELETE on exit", T, async () => {
    const events = new InProcessEventSource<FanoutTopics>();
    const server = createFanoutServer(events, "dual");
    const handle = await serveHttp(server);
    try {
      const run = runListen(["--url", handle.url, "--legacy", "--tools", "--resource", "file:///a", "--count", "2"]);
      await run.line(/^acknowledged:/);
      await until(() => server.legacySessions.size === 1, "the session");
      await events.publish("prompts", { origin: "not asked for" });
      await events.publish("resource:file:///b", { origin: "test", uri: "file:///b" }); // not subscribed
      await events.publish("resource:file:///a", { origin: "test", uri: "file:///a" });
      await events.publish("tools", { origin: "test" });
      assert.equal(await run.exit, 0, run.stderr());
      assert.deepEqual(run.stdout().trimEnd().split("\n"), [
        `no ${PROTOCOL_VERSION} here (asked for with --legacy): opening a ${LEGACY_VERSION} session (initialize, then its notification stream)`,
        "server: dual 1.0.0; protocol versions: 2025-11-25",
        "advertises: logging",
        "advertises: prompts (listChanged)",
        "advertises: resources (subscribe)",
        "advertises: tools (listChanged)",
        "listening for: resourceSubscriptions [file:///a], toolsListChanged",
        "acknowledged: resourceSubscriptions [file:///a], toolsListChanged",
        'notification notifications/resources/updated {"uri":"file:///a"}',
        "notification notifications/tools/list_changed {}",
        "ended: stopped by mcp-gen listen (stream closed)",
      ]);
      await until(() => server.legacySessions.size === 0, "the DELETE at exit");
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("a 1.x SDK server over HTTP refuses server/discover: listen falls back to a session and prints its list change", T, async () => {
    const sdk = await startSdk1Http();
    try {
      const run = runListen(["--url", sdk.url, "--count", "1"]);
      await run.line(/^acknowledged:/);
      sdk.addTool("added");
      assert.equal(await run.exit, 0, run.stderr());
      const lines = run.stdout().trimEnd().split("\n");
      assert.ok(lines[0]!.startsWith(`no ${PROTOCOL_VERSION} here (server/discover got HTTP 400): opening a ${LEGACY_VERSION} session`), lines[0]);
      assert.equal(lines[1], "server: sdk1-http 1.0.0; protocol versions: 2025-11-25");
      assert.ok(lines.includes("acknowledged: toolsListChanged"), lines.join("\n"));
      assert.equal(lines.at(-2), "notification notifications/tools/list_changed {}");
      await until(() => sdk.sessions.size === 0, "the DELETE at exit");
    } finally {
      await sdk.close();
    }
  });

  it("a FastMCP 4.x server answers server/discover with HTTP 400 and -32000: listen falls back to a session and reads what it advertises", T, async () => {
    const fastmcp = await startFastMcp();
    try {
      const run = runListen(["--url", fastmcp.url]);
      // FastMCP 4.x advertises tools without listChanged: the session opens, and listen says there is nothing to wait for.
      assert.equal(await run.exit, 1, run.stderr());
      assert.deepEqual(run.stdout().trimEnd().split("\n"), [
        `no ${PROTOCOL_VERSION} here (server/discover got HTTP 400): opening a ${LEGACY_VERSION} session (initialize, then its notification stream)`,
        "server: fastmcp-adder 4.0.0; protocol versions: 2025-11-25",
        "advertises: completions",
        "advertises: logging",
        "advertises: tools",
      ]);
      assert.match(run.stderr(), /^error: the server advertises no notification a listen session could carry/);
    } finally {
      await fastmcp.stop();
    }
  });

  it("a 401 to server/discover is an error about the credentials: one line, no fallback to a session", T, async () => {
    const fastmcp = await startFastMcp({ requiredAuthorization: "Bearer right" });
    try {
      const run = runListen(["--url", fastmcp.url, "--header", "authorization: Bearer wrong"]);
      assert.equal(await run.exit, 1, run.stderr());
      assert.equal(run.stdout(), "");
      assert.match(run.stderr(), /^error: .*HTTP 401/);
      assert.equal(run.stderr().trimEnd().split("\n").length, 1, run.stderr());
    } finally {
      await fastmcp.stop();
    }
  });

  it("a 1.x SDK server over stdio answers server/discover with method-not-found: listen initializes on the same pipe", T, async () => {
    const run = runListen(["--count", "1", "--", process.execPath, "--import", "tsx", SDK1_STDIO]);
    assert.equal(await run.exit, 0, run.stderr());
    const lines = run.stdout().trimEnd().split("\n");
    assert.ok(lines[0]!.startsWith(`no ${PROTOCOL_VERSION} here (server/discover is not a method there)`), lines[0]);
    assert.equal(lines[1], "server: sdk1-stdio 1.0.0; protocol versions: 2025-11-25");
    assert.deepEqual(lines.slice(-2), ["notification notifications/tools/list_changed {}", "ended: stopped by mcp-gen listen (stream closed)"]);
  });

  it(
    "a server that redirects to another origin is not followed, with --legacy or without: one error line naming that origin, and it receives nothing",
    T,
    async () => {
      const elsewhere = await plainServer(200);
      const server = await plainServer(307, `${elsewhere.origin}/mcp`);
      try {
        for (const legacy of [["--legacy"], []]) {
          const run = runListen(["--url", `${server.origin}/mcp`, "--header", "x-api-key: key-1", ...legacy]);
          assert.equal(await run.exit, 1, run.stderr());
          assert.match(run.stderr(), new RegExp(`redirects \\(HTTP 307\\) to another origin, ${elsewhere.origin}: not followed`), run.stderr());
          assert.equal(run.stderr().trimEnd().split("\n").length, 1, run.stderr());
        }
        assert.ok(server.received.length >= 2 && server.received.every((headers) => headers["x-api-key"] === "key-1"));
        assert.deepEqual(elsewhere.received, []);
      } finally {
        await server.close();
        await elsewhere.close();
      }
    },
  );

  it("--legacy on a modern-only server: one error line naming the versions it speaks, exit 1", T, async () => {
    const server = createServer({ name: "modern", version: "1", legacy: false });
    server.addTool({ name: "t", inputSchema: { type: "object" } }, () => ({ content: [] }));
    const handle = await serveHttp(server);
    try {
      const run = runListen(["--url", handle.url, "--legacy"]);
      assert.equal(await run.exit, 1);
      assert.match(
        run.stderr(),
        new RegExp(`^error: initialize failed: Unsupported protocol version "${LEGACY_VERSION}"; this server supports ${PROTOCOL_VERSION}`),
      );
      assert.equal(run.stderr().trimEnd().split("\n").length, 1, run.stderr());
    } finally {
      await handle.close();
      await server.close();
    }
  });
});

/** A bare node:http server on 127.0.0.1 answering every request with one status (and `location`), recording each request's headers. */
async function plainServer(status: number, location?: string) {
  const received: IncomingHttpHeaders[] = [];
  const server = createHttpServer((request, response) => {
    received.push(request.headers);
    request.resume();
    response.writeHead(status, location === undefined ? {} : { location });
    response.end();
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, received, close: () => new Promise<void>((closed) => server.close(() => closed())) };
}

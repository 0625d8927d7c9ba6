/**
 * `mcp-gen listen` as a user runs it (a child process), against real servers: one on the
 * generated runtime over Streamable HTTP on 127.0.0.1, one over stdio.
 */
import assert from "node:assert/strict";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import { serveHttp } from "../../../../packages/runtime/src/transports/http-server.js";
import { countingApp } from "../../../runtime/transports/http-helpers.js";
import { PROTOCOL_VERSION } from "../../../support/runtime-peer.js";
import { repoRoot } from "../../../support/schemas.js";
import { runListen } from "./run-listen.js";

const T = { timeout: 60_000 };
const FIXTURE = join(repoRoot, "test/e2e/cli/listen/fixtures/stdio-server.ts");

describe("mcp-gen listen over Streamable HTTP", () => {
  it("prints what the server advertises, the ack flagging what was not honored, each notification, and a stop", T, async () => {
    const app = countingApp();
    const handle = await serveHttp(app.server);
    try {
      const run = runListen(["--url", handle.url, "--tools", "--prompts", "--resource", "file:///a", "--count", "2"]);
      await run.line(/^acknowledged:/);
      await app.events.publish("resources", { uri: "file:///b" }); // not asked for
      await app.events.publish("resources", { uri: "file:///a" });
      await app.events.publish("tools", {});
      assert.equal(await run.exit, 0, run.stderr());
      assert.deepEqual(run.stdout().trimEnd().split("\n"), [
        `server: http-test 1.0.0; protocol versions: ${PROTOCOL_VERSION}`,
        "advertises: logging", // the app has a request handler, which can log
        "advertises: resources (subscribe)",
        "advertises: tools (listChanged)",
        "listening for: promptsListChanged, resourceSubscriptions [file:///a], toolsListChanged",
        "acknowledged: resourceSubscriptions [file:///a], toolsListChanged; NOT honored: promptsListChanged",
        'notification notifications/resources/updated {"uri":"file:///a","_meta":{"io.modelcontextprotocol/subscriptionId":2}}',
        'notification notifications/tools/list_changed {"_meta":{"io.modelcontextprotocol/subscriptionId":2}}',
        "ended: stopped by mcp-gen listen (stream closed)",
      ]);
      await app.closed(1); // its stop closed the HTTP response: an outside teardown
    } finally {
      await handle.close();
    }
  });

  it("reports the complete result when the server ends the stream", T, async () => {
    const app = countingApp();
    const handle = await serveHttp(app.server);
    try {
      const run = runListen(["--url", handle.url, "--tools"]);
      await run.line(/^acknowledged:/);
      await app.events.publish("end", {});
      assert.equal(await run.exit, 0, run.stderr());
      assert.match(run.stdout(), /\nended: complete result \(subscription 2\)\n$/);
    } finally {
      await handle.close();
    }
  });

  it("reports an abrupt close (no complete result) as an error", T, async () => {
    const app = countingApp();
    const handle = await serveHttp(app.server);
    const run = runListen(["--url", handle.url, "--tools"]);
    await run.line(/^acknowledged:/);
    await handle.close(); // drops every connection
    assert.equal(await run.exit, 1);
    assert.match(run.stderr(), /^error: the listen stream closed abruptly, without a complete result/);
  });
});

describe("mcp-gen listen over stdio", () => {
  it("spawns the server after --, and prints the whole session down to the complete result", T, async () => {
    const run = runListen(["--", process.execPath, "--import", "tsx", FIXTURE]);
    assert.equal(await run.exit, 0, run.stderr());
    assert.deepEqual(run.stdout().trimEnd().split("\n"), [
      `server: listen-fixture 2.0.0; protocol versions: ${PROTOCOL_VERSION}`,
      "advertises: tools (listChanged)",
      "listening for: toolsListChanged (everything the server advertises)",
      "acknowledged: toolsListChanged",
      'notification notifications/tools/list_changed {"_meta":{"io.modelcontextprotocol/subscriptionId":2}}',
      "ended: complete result (subscription 2)",
    ]);
  });

  it("says so and exits 1 when the server honors nothing that was asked", T, async () => {
    const run = runListen(["--prompts", "--", process.execPath, "--import", "tsx", FIXTURE]);
    assert.equal(await run.exit, 1);
    assert.match(run.stdout(), /acknowledged: nothing; NOT honored: promptsListChanged/);
    assert.match(run.stderr(), /^error: the server honored none of the requested notifications/);
  });
});

describe("mcp-gen listen: bad invocations", () => {
  const cases: Array<[string, string[], number, RegExp]> = [
    ["no server named", [], 2, /^error: no server to listen to \(give --url URL, or a stdio server command after --/],
    ["both --url and a command", ["--url", "http://127.0.0.1:9/mcp", "--", "node", "x.js"], 2, /^error: give either --url or a command after --, not both/],
    ["a --url that is not a URL", ["--url", "not a url"], 2, /^error: --url not a url is not a URL/],
    ["a --url that is not http", ["--url", "ftp://127.0.0.1/mcp"], 2, /^error: --url must be http: or https:/],
    ["a --count that is not positive", ["--url", "http://127.0.0.1:9/mcp", "--count", "0"], 2, /^error: --count must be a positive integer/],
    ["a command that does not exist", ["--", "/nonexistent/mcp-server"], 1, /^error: could not start the server `\/nonexistent\/mcp-server`/],
  ];
  it("a server that is not there: says so with the reason, exit 1", T, async () => {
    const probe = createNetServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve)); // nothing listens there now
    const run = runListen(["--url", `http://127.0.0.1:${port}/mcp`]);
    assert.equal(await run.exit, 1);
    assert.match(run.stderr(), new RegExp(`^error: could not reach the server at http://127\\.0\\.0\\.1:${port}/mcp: fetch failed: ECONNREFUSED`));
  });

  for (const [name, args, code, message] of cases) {
    it(`${name}: one error line, exit ${code}`, T, async () => {
      const run = runListen(args);
      assert.equal(await run.exit, code, run.stderr());
      assert.match(run.stderr(), message);
      assert.equal(run.stderr().trimEnd().split("\n").length, 1, run.stderr());
    });
  }
});

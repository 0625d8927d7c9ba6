/**
 * `npm run dev` of an HTTP scaffold keeps a 2025-11-25 session across the restart a saved
 * edit makes (src/serve/dev-sessions.ts, the file MCP_DEV_SESSIONS names): the official 1.x
 * client goes on with the same session id and lists the edited tool, no new initialize.
 * The dev script is `mcp-gen dev --http`: this checkout's CLI is put first on PATH.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { npmEnv, startProcess } from "../../../cli/scaffold/helpers.js";
import { freePort } from "../../../support/ports.js";
import { DESCRIPTION, devScaffold, TOOL_FILE } from "../dev/dev-scaffold.js";

const E2E = { timeout: 180_000 };
const WAIT_MS = 60_000;
const project = devScaffold(E2E.timeout);

/** `npm run dev`'s output: tsc's, mcp-gen dev's and the server's, all on stderr. */
function devRun(port: number) {
  const dev = startProcess("npm", ["run", "dev"], { cwd: project.dir, env: { ...npmEnv, ...project.env, PORT: String(port) } });
  const count = (pattern: RegExp) => dev.stderr.match(pattern)?.length ?? 0;
  const state = () => ({
    builds: count(/Found 0 errors\. Watching for file changes/g),
    restarts: count(/mcp-gen dev: server reloaded/g),
  });
  return { dev, state, output: () => dev.stderr };
}

/**
 * Runs `call` until it succeeds, or `done(result)` holds, bounded. Only a refused connection
 * (no server listens for the moment a restart takes) is tried again: any answer the server
 * gives, an unknown session's 404 among them, fails the test.
 */
async function whenServed<T>(call: () => Promise<T>, done: (result: T) => boolean, output: () => string): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      const result = await call();
      if (done(result)) return result;
    } catch (error) {
      const refused = error instanceof TypeError && /fetch failed/.test(error.message);
      if (!refused) throw error;
    }
    if (Date.now() > deadline) throw new Error(`not served as expected within ${WAIT_MS} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test("a 2025-11-25 session of the official 1.x client answers under the same id after npm run dev restarts the server on a saved edit", E2E, async () => {
  const port = await freePort();
  const { dev, state, output } = devRun(port);
  let transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
  const client = new Client({ name: "dev-sessions-e2e", version: "0.0.0" });
  try {
    await dev.waitFor(/serving MCP on http:/, WAIT_MS);
    // A transport starts once: a connection refused (none is expected: requests wait for the server) is tried again on a fresh one.
    const connect = async () => {
      transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
      await client.connect(transport);
    };
    await whenServed(connect, () => true, output);
    const sessionId = transport.sessionId;
    assert.ok(sessionId, "a 2025-11-25 session");
    const describe = async () => (await client.listTools()).tools.find((tool) => tool.name === "ask_name")?.description;
    await whenServed(describe, () => state().builds >= 1, output);
    assert.equal(await whenServed(describe, () => true, output), DESCRIPTION);

    const original = readFileSync(join(project.dir, TOOL_FILE), "utf8");
    const edited = `${DESCRIPTION} (edited)`;
    const before = state();
    writeFileSync(join(project.dir, TOOL_FILE), original.replace(DESCRIPTION, edited));
    assert.equal(await whenServed(describe, (description) => description === edited, output), edited, "the restarted server serves the session");
    // mcp-gen dev's line reaches this process through npm's pipe, possibly after the new server's first answer.
    await whenServed(async () => state().restarts, (restarts) => restarts > before.restarts, output);
    assert.equal(transport.sessionId, sessionId, "the same session, not a new one");
  } finally {
    await client.close().catch(() => {});
    await dev.stop("SIGTERM");
  }
});

/**
 * Where `mcp-gen client` reads its tools: `--from-url` against a real FastMCP 4.x server,
 * which refuses `server/discover` (HTTP 400, -32000) and is listed through an initialize
 * session instead; and what one caller may see: a tool whose `visibility` hides it from the
 * caller (`--from-url` with that caller's header, or a project's tools listed with or without
 * `--scopes`) is not bound.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, test } from "node:test";
import { promisify } from "node:util";
import { toolsFromProject } from "../../../../cli/client/source.js";
import { serveHttp } from "../../../../packages/runtime/src/transports/http-server.js";
import { startFastMcp } from "../../../support/fastmcp-server.js";
import { createVisibilityServer } from "../../../support/visibility-app.js";
import { repoRoot } from "../../../support/schemas.js";
import { tempFolder } from "../../../cli/scaffold/helpers.js";

const temp = tempFolder("mcp-gen-client-source");
after(() => temp.remove());

/** `mcp-gen client` as a child process (the server answering it runs in this one). */
async function runClient(args: readonly string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const command = ["--import", import.meta.resolve("tsx"), join(repoRoot, "cli", "main.ts"), "client", ...args];
  return promisify(execFile)(process.execPath, command, { cwd, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout: string; stderr: string }) => ({ code: error.code ?? -1, stdout: error.stdout, stderr: error.stderr }),
  );
}

test(
  "--from-url a FastMCP 4.x server, which refuses server/discover: its tool is listed through initialize and a client is written",
  { timeout: 90_000 },
  async () => {
    const fastmcp = await startFastMcp();
    const folder = join(temp.dir, "fastmcp");
    mkdirSync(folder);
    try {
      const run = await runClient(["--from-url", fastmcp.url, "--out", "client.ts", "--generated", join(repoRoot, "generated")], folder);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^wrote client\.ts: a client for MCP 2026-07-28, 1 tool \(add\) from --from-url http:\/\/127\.0\.0\.1:\d+\/mcp/);
      assert.match(readFileSync(join(folder, "client.ts"), "utf8"), /export interface AddArguments \{\n {2}a: number;\n {2}b: number;\n\}/);
    } finally {
      await fastmcp.stop();
    }
  },
);

/** What a test's authenticate hook vouches for: the scopes in `x-test-scopes`, or an anonymous caller. */
function scopesHeader(req: IncomingMessage): unknown {
  const scopes = req.headers["x-test-scopes"];
  return typeof scopes === "string" ? { scopes: scopes.split(",") } : undefined;
}

test("--from-url binds only the tools the server lists to the caller of --header", { timeout: 90_000 }, async () => {
  const handle = await serveHttp(createVisibilityServer(), { host: "127.0.0.1", port: 0, authenticate: scopesHeader });
  const folder = join(temp.dir, "visible");
  mkdirSync(folder);
  try {
    const generated = ["--generated", join(repoRoot, "generated")];
    const anonymous = await runClient(["--from-url", handle.url, "--out", "anonymous.ts", ...generated], folder);
    assert.equal(anonymous.code, 0, anonymous.stderr);
    assert.match(anonymous.stdout, /1 tool \(open_tool\)/);
    assert.doesNotMatch(readFileSync(join(folder, "anonymous.ts"), "utf8"), /admin_reset/);
    const admin = await runClient(["--from-url", handle.url, "--header", "x-test-scopes: mcp:admin", "--out", "admin.ts", ...generated], folder);
    assert.equal(admin.code, 0, admin.stderr);
    assert.match(admin.stdout, /2 tools \(open_tool, admin_reset\)/);
    const scoped = await runClient(["--from-url", handle.url, "--scopes", "mcp:admin", "--out", "scoped.ts", ...generated], folder);
    assert.equal(scoped.code, 2, scoped.stdout);
    assert.match(scoped.stderr, /^error: --scopes applies to a project's own tools/);
  } finally {
    await handle.close();
  }
});

test("a project's tools are listed as an unauthenticated caller sees them, or with --scopes as a caller holding those scopes", { timeout: 60_000 }, async () => {
  // A stand-in for a built project: dist/src/server.js exporting createAppServer (no src/ to be newer than it).
  const project = join(temp.dir, "project");
  mkdirSync(join(project, "dist", "src"), { recursive: true });
  const app = pathToFileURL(join(repoRoot, "test", "support", "visibility-app.ts")).href;
  writeFileSync(join(project, "dist", "src", "server.js"), `export { createVisibilityServer as createAppServer } from ${JSON.stringify(app)};\n`);
  const names = async (scopes?: string[]) => (await toolsFromProject(project, scopes)).tools.map((tool) => tool.name);
  assert.deepEqual(await names(), ["open_tool"]);
  assert.deepEqual(await names(["mcp:read"]), ["open_tool"]);
  assert.deepEqual(await names(["mcp:read", "mcp:admin"]), ["open_tool", "admin_reset"]);
  assert.match((await toolsFromProject(project, ["mcp:admin"])).origin, /as a caller with scopes mcp:admin sees them$/);
});

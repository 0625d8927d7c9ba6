/**
 * Where `mcp-gen client` reads its tools: `--from-url` against a real FastMCP 4.x server,
 * which refuses `server/discover` (HTTP 400, -32000) and is listed through an initialize
 * session instead.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";
import { startFastMcp } from "../../../support/fastmcp-server.js";
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

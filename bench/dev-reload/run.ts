/**
 * How long `npm run dev` of a fresh HTTP scaffold takes from a saved edit to an answer with
 * the edited code: each round rewrites the `ask_name` tool's description in
 * src/tools/ask-name.ts (the save), then asks `tools/list` over HTTP (a 2026-07-28 request)
 * every 25 ms until the description it lists is the new one. tsc --watch rebuilds, mcp-gen
 * dev --http replaces the server behind its address (a request meanwhile waits for the new
 * one), and the time covers both plus the new server's start.
 * Reports min, median and max over the rounds; `--busy` keeps the other core busy with a
 * spinning process.
 *
 *   node --import tsx bench/dev-reload/run.ts [--rounds 9] [--busy]
 *
 * The scaffold is made and installed in a temp folder and removed afterwards; its runtime
 * comes from the tarball `npm run build` packs, so build after editing the runtime or the
 * templates. Loopback only; every wait is bounded. Not part of the test suite.
 */
import { freePort } from "../../test/support/ports.js";
import { npmEnv, startProcess } from "../../test/cli/scaffold/helpers.js";
import { measureReloads, START_TIMEOUT_MS } from "./rounds.js";

/** The `ask_name` description the server lists now, or undefined while nothing answers. */
async function listedDescription(url: string): Promise<string | undefined> {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
  };
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-method": "tools/list",
        "mcp-protocol-version": "2026-07-28",
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(2_000),
    });
    if (!response.ok) return undefined;
    const answer = (await response.json()) as { result?: { tools?: Array<{ name: string; description?: string }> } };
    return answer.result?.tools?.find((tool) => tool.name === "ask_name")?.description;
  } catch {
    return undefined; // restarting: nothing listens for a moment
  }
}

await measureReloads("http", "npm run dev", async (app) => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const dev = startProcess("npm", ["run", "dev"], { cwd: app, env: { ...npmEnv, PORT: String(port) } });
  const stop = async () => {
    if (dev.child.pid !== undefined && dev.child.exitCode === null) process.kill(-dev.child.pid, "SIGKILL");
  };
  await dev.waitFor(/serving MCP on http:/, START_TIMEOUT_MS).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { list: () => listedDescription(url), stop };
});

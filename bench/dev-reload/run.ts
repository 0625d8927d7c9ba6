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
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { explain, npmEnv, runCreate, startProcess, tempFolder } from "../../test/cli/scaffold/helpers.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "9" },
    busy: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(values.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 100) throw new Error("--rounds takes a whole number from 1 to 100");
/** How long the first start, and then one edit's new answer, may take. */
const START_TIMEOUT_MS = 90_000;
const ANSWER_TIMEOUT_MS = 30_000;
const POLL_MS = 25;
/** A pause between rounds, so that each save starts from a settled watcher. */
const SETTLE_MS = 1_500;

const TOOL_FILE = join("src", "tools", "ask-name.ts");
const DESCRIPTION = "Asks for your name, then greets you by it.";

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

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

async function untilListed(url: string, description: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await listedDescription(url)) !== description) {
    if (Date.now() > deadline) throw new Error(`no answer listing ${JSON.stringify(description)} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return `min ${sorted[0]} ms, median ${median} ms, max ${sorted.at(-1)} ms (${sorted.length} saves)`;
}

async function main(): Promise<void> {
  const temp = tempFolder("bench-dev-reload");
  const spinner = values.busy ? spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }) : undefined;
  try {
    const app = join(temp.dir, "app");
    const created = runCreate([app, "--yes", "--no-git", "--transport", "http"], temp.dir);
    if (created.status !== 0) throw new Error(`create-mcp-handler failed: ${explain(created)}`);
    const toolPath = join(app, TOOL_FILE);
    const original = readFileSync(toolPath, "utf8");
    if (!original.includes(DESCRIPTION)) throw new Error(`${TOOL_FILE} no longer holds ${JSON.stringify(DESCRIPTION)}: update the bench`);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const dev = startProcess("npm", ["run", "dev"], { cwd: app, env: { ...npmEnv, PORT: String(port) } });
    try {
      await dev.waitFor(/serving MCP on http:/, START_TIMEOUT_MS);
      await untilListed(url, DESCRIPTION, ANSWER_TIMEOUT_MS);
      const samples: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        const edited = `${DESCRIPTION} (edit ${round})`;
        const started = performance.now();
        writeFileSync(toolPath, original.replace(DESCRIPTION, edited));
        await untilListed(url, edited, ANSWER_TIMEOUT_MS);
        samples.push(Math.round(performance.now() - started));
      }
      console.log(`node ${process.version}, ${values.busy ? "another core busy" : "quiet"} (load ${loadavg()[0]!.toFixed(1)})`);
      console.log(`npm run dev, save to the edited answer: ${summary(samples)}`);
    } finally {
      if (dev.child.pid !== undefined) process.kill(-dev.child.pid, "SIGKILL");
    }
  } finally {
    spinner?.kill();
    temp.remove();
  }
}

await main();

/**
 * How long `mcp-gen dev` takes, under a client that spawned it over stdio, from a saved edit
 * to a `tools/list` answer with the edited code. A fresh stdio scaffold; the client is this
 * script, writing newline-delimited JSON-RPC to the command's stdin as any stdio client does
 * (a 2025-11-25 `initialize`, then `notifications/initialized`). Each round rewrites the
 * `ask_name` tool's description in src/tools/ask-name.ts (the save), then asks `tools/list`
 * every 25 ms until the description it lists is the new one: tsc --watch's rebuild, the
 * quiet wait before a restart, the new server's start and the replayed handshake all count.
 * A request sent while the server is replaced is answered with an error naming the reload:
 * the bench asks again. Reports min, median and max; `--busy` keeps the other core busy.
 *
 *   node --import tsx bench/dev-reload/stdio.ts [--rounds 9] [--busy]
 *
 * The scaffold is made and installed in a temp folder and removed afterwards, and the
 * command is the one its README gives a client (`npx mcp-gen dev`, here the project's own
 * node_modules/.bin/mcp-gen), so build after editing the CLI or the templates. Every wait is
 * bounded. Not part of the test suite.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { explain, npmEnv, runCreate, tempFolder } from "../../test/cli/scaffold/helpers.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "9" },
    busy: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(values.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 100) throw new Error("--rounds takes a whole number from 1 to 100");
/** How long the first build and start, then one edit's new answer, may take. */
const START_TIMEOUT_MS = 90_000;
const ANSWER_TIMEOUT_MS = 30_000;
/** How long one request may go unanswered before the round fails. */
const REQUEST_TIMEOUT_MS = 10_000;
const POLL_MS = 25;
/** A pause between rounds, so that each save starts from a settled watcher. */
const SETTLE_MS = 1_500;

const TOOL_FILE = join("src", "tools", "ask-name.ts");
const DESCRIPTION = "Asks for your name, then greets you by it.";

interface Answer {
  result?: { tools?: Array<{ name: string; description?: string }> };
  error?: { code: number; message: string };
}

/** A stdio client in a few lines: requests by id, each answer matched to its request. */
class LineClient {
  #nextId = 1;
  #waiting = new Map<number, (answer: Answer) => void>();
  #buffered = "";

  constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      const lines = (this.#buffered + chunk).split("\n");
      this.#buffered = lines.pop()!;
      for (const line of lines) if (line.trim() !== "") this.#take(JSON.parse(line) as Answer & { id?: number; method?: string });
    });
  }

  request(method: string, params: unknown, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Answer> {
    const id = this.#nextId++;
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error(`${method} unanswered after ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiting.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
    });
  }

  notify(method: string): void {
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`);
  }

  /** An answer goes to its request; the server's notifications (list changed) are not needed here. */
  #take(message: Answer & { id?: number; method?: string }): void {
    if (message.method !== undefined || typeof message.id !== "number") return;
    const resolve = this.#waiting.get(message.id);
    this.#waiting.delete(message.id);
    resolve?.(message);
  }
}

async function listedDescription(client: LineClient): Promise<string | undefined> {
  const answer = await client.request("tools/list", {});
  return answer.result?.tools?.find((tool) => tool.name === "ask_name")?.description; // an error: reloading
}

async function untilListed(client: LineClient, description: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await listedDescription(client)) !== description) {
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
  const temp = tempFolder("bench-dev-reload-stdio");
  const spinner = values.busy ? spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }) : undefined;
  try {
    const app = join(temp.dir, "app");
    const created = runCreate([app, "--yes", "--no-git", "--transport", "stdio"], temp.dir);
    if (created.status !== 0) throw new Error(`create-mcp-handler failed: ${explain(created)}`);
    const toolPath = join(app, TOOL_FILE);
    const original = readFileSync(toolPath, "utf8");
    if (!original.includes(DESCRIPTION)) throw new Error(`${TOOL_FILE} no longer holds ${JSON.stringify(DESCRIPTION)}: update the bench`);
    const dev = spawn(join(app, "node_modules", ".bin", "mcp-gen"), ["dev"], { cwd: app, env: npmEnv, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    dev.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    try {
      const client = new LineClient(dev);
      // Answered once the first build is done and the server has started.
      const initialize = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench-dev-reload", version: "0.0.0" } };
      const started = await client.request("initialize", initialize, START_TIMEOUT_MS);
      if (started.error !== undefined) throw new Error(`initialize failed: ${started.error.message}\n${stderr}`);
      client.notify("notifications/initialized");
      await untilListed(client, DESCRIPTION, ANSWER_TIMEOUT_MS);
      const samples: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        const edited = `${DESCRIPTION} (edit ${round})`;
        const saved = performance.now();
        writeFileSync(toolPath, original.replace(DESCRIPTION, edited));
        await untilListed(client, edited, ANSWER_TIMEOUT_MS);
        samples.push(Math.round(performance.now() - saved));
      }
      console.log(`node ${process.version}, ${values.busy ? "another core busy" : "quiet"} (load ${loadavg()[0]!.toFixed(1)})`);
      console.log(`mcp-gen dev over stdio, save to the edited answer: ${summary(samples)}`);
    } finally {
      dev.stdin.end(); // the client leaving ends the command, its tsc and its server
      const exited = new Promise((resolve) => dev.once("exit", resolve));
      const timer = setTimeout(() => dev.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
  } finally {
    spinner?.kill();
    temp.remove();
  }
}

await main();

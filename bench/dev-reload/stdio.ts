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
import { join } from "node:path";
import { npmEnv } from "../../test/cli/scaffold/helpers.js";
import { measureReloads, START_TIMEOUT_MS } from "./rounds.js";

/** How long one request may go unanswered before the round fails. */
const REQUEST_TIMEOUT_MS = 10_000;

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

await measureReloads("stdio", "mcp-gen dev over stdio", async (app) => {
  const dev = spawn(join(app, "node_modules", ".bin", "mcp-gen"), ["dev"], { cwd: app, env: npmEnv, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  dev.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const stop = async () => {
    dev.stdin.end(); // the client leaving ends the command, its tsc and its server
    const exited = new Promise((resolve) => dev.once("exit", resolve));
    const timer = setTimeout(() => dev.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const client = new LineClient(dev);
  // Answered once the first build is done and the server has started.
  const initialize = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench-dev-reload", version: "0.0.0" } };
  const started = await client.request("initialize", initialize, START_TIMEOUT_MS).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  if (started.error !== undefined) {
    await stop();
    throw new Error(`initialize failed: ${started.error.message}\n${stderr}`);
  }
  client.notify("notifications/initialized");
  return { list: () => listedDescription(client), stop };
});

/**
 * Starts `servers/fanout-node.ts` as a real child process for a test and connects the
 * official MCP client to it, over HTTP or stdio. Every start is bounded in time; `stop`
 * always leaves no process behind.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { repoRoot } from "../support/schemas.js";

const SCRIPT = fileURLToPath(new URL("./servers/fanout-node.ts", import.meta.url));
const START_TIMEOUT_MS = 30_000;

export interface FanoutProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything the process wrote on stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** SIGKILLs the process if it still runs. */
  kill(): Promise<void>;
}

export function spawnFanout(env: Record<string, string>, args: string[] = []): { child: ChildProcess; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, ...args], {
    cwd: repoRoot,
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

/** Starts an HTTP fan-out server and resolves once it prints its URL. */
export async function startFanoutHttp(env: Record<string, string>): Promise<FanoutProcess> {
  const { child, stderr, exited } = spawnFanout(env);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr()}`)), START_TIMEOUT_MS);
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk;
      const match = /listening (\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening: ${stderr()}`));
    });
  });
  return { child, url, stderr, exited, kill: () => killProcess(child, exited) };
}

export async function killProcess(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await exited;
}

function newClient(name: string): Client {
  return new Client({ name, version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
}

/** The official client over Streamable HTTP. */
export async function connectHttpClient(url: string, name = "scale-test"): Promise<Client> {
  const client = newClient(name);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** The official client over stdio, spawning the fan-out server itself. */
export async function connectStdioClient(env: Record<string, string>): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", SCRIPT, "--stdio"],
    cwd: repoRoot,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "pipe",
  });
  const client = newClient("scale-test-stdio");
  await client.connect(transport);
  return { client, transport };
}

/** Waits (bounded) until `check` holds; returns whether it did. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

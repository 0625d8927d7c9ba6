/**
 * Starts `servers/fanout-node.ts` as a real child process for a test and connects the
 * official MCP client to it over HTTP. Every start is bounded in time; `stop`
 * always leaves no process behind.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { waitForStdout } from "../../support/child-output.js";
import { repoRoot } from "../../support/schemas.js";

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

/** Spawns the fan-out server with `env` added; PORT defaults to 0 (a free port). */
export function spawnFanout(env: Record<string, string>): { child: ChildProcess; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
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
  const [, url] = await waitForStdout(child, /listening (\S+)/, START_TIMEOUT_MS, () => `: ${stderr()}`);
  return { child, url, stderr, exited, kill: () => killProcess(child, exited) };
}

async function killProcess(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await exited;
}

/** The official client, pinned to the 2026-07-28 revision. */
export function officialClient(name: string): Client {
  return new Client({ name, version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
}

/** The official client over Streamable HTTP. */
export async function connectHttpClient(url: string, name = "scale-test"): Promise<Client> {
  const client = officialClient(name);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

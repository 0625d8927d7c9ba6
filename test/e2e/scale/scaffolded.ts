/**
 * A project made by `create-mcp-handler` from this checkout, built and ready to start, for
 * tests that need the real scaffolded server (its run.ts, shutdown and event source). Its
 * node_modules links to this checkout's packages, which hold everything a project depends on
 * (typescript, @types/node, redis, the runtime), so no install is needed.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Transport as SdkTransport } from "@modelcontextprotocol/client";
import { repoRoot } from "../../support/schemas.js";

export interface ScaffoldedProject {
  readonly dir: string;
  remove(): void;
}

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", timeout: 180_000 });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
}

/**
 * Scaffolds with `createArgs` (e.g. `--transport both`) into a temp folder and builds it;
 * `prepare` may add to the project before the build (a test's own tool, say).
 */
export function scaffoldProject(createArgs: string[], prepare?: (dir: string) => void): ScaffoldedProject {
  const parent = mkdtempSync(join(tmpdir(), "mcp-gen-scale-"));
  const dir = join(parent, "app");
  const remove = () => rmSync(parent, { recursive: true, force: true });
  try {
    const create = join(repoRoot, "cli", "create.ts");
    run(process.execPath, ["--import", "tsx", create, dir, "--yes", "--no-install", "--no-git", ...createArgs], repoRoot);
    linkModules(dir);
    prepare?.(dir);
    // Built as `npm run build` builds it, so dist/src/main.js serves the bundle, as deployed.
    run(process.execPath, [join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], dir);
    run(process.execPath, ["--import", "tsx", join(repoRoot, "cli", "main.ts"), "prebundle"], dir);
  } catch (error) {
    remove();
    throw error;
  }
  return { dir, remove };
}

/**
 * The project's node_modules: a link to each of this checkout's packages, but the runtime
 * package linked to this checkout's packages/runtime, whichever checkout the node_modules it
 * shares with others leads there.
 */
function linkModules(dir: string): void {
  const modules = join(repoRoot, "node_modules");
  const linked = join(dir, "node_modules");
  mkdirSync(join(linked, "@mcp-gen"), { recursive: true });
  for (const name of readdirSync(modules)) {
    if (name !== "@mcp-gen") symlinkSync(join(modules, name), join(linked, name));
  }
  symlinkSync(join(repoRoot, "packages", "runtime"), join(linked, "@mcp-gen", "runtime"), "dir");
}

export interface StartedServer {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  stderr(): string;
}

/** Starts `node dist/src/main.js` in the project with stdio piped. */
export function startProject(project: ScaffoldedProject, args: string[], env: Record<string, string> = {}): StartedServer {
  const child = spawn(process.execPath, ["dist/src/main.js", ...args], {
    cwd: project.dir,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, stderr: () => stderr };
}

/** Resolves with the URL once an HTTP server printed `serving MCP on <url>`; bounded. */
export async function servedUrl(server: StartedServer, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = /serving MCP on (\S+)/.exec(server.stderr());
    if (match) return match[1]!;
    if (server.child.exitCode !== null || Date.now() > deadline) throw new Error(`no URL: ${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Whether the server at `origin` is ready and whole: GET /readyz answers 200 "ok", not 503 nor
 * 200 naming parts it serves without (a broker out of reach degrades it, and it stays ready).
 * `probeFrom` is the loopback address the probe connects from (a server with PROXY_PROTOCOL=1
 * closes a connection from a trusted proxy that sends no header; from another address the
 * probe is plain HTTP).
 */
export async function isWhole(origin: string, probeFrom?: string): Promise<boolean> {
  const { status, body } = await probe(`${origin}/readyz`, probeFrom);
  return status === 200 && body === "ok\n";
}

/**
 * The URL once the server is also whole (a Redis project connects to its broker in the
 * background after it starts serving); bounded.
 */
export async function readyUrl(server: StartedServer, timeoutMs = 30_000, probeFrom?: string): Promise<string> {
  const url = await servedUrl(server, timeoutMs);
  const deadline = Date.now() + timeoutMs;
  while (!(await isWhole(new URL(url).origin, probeFrom))) {
    if (server.child.exitCode !== null || Date.now() > deadline) throw new Error(`never ready: ${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return url;
}

/** GET `url` from `localAddress` (default: the system's choice); status 0 if the connection failed or closed unanswered. */
function probe(url: string, localAddress: string | undefined): Promise<{ status: number; body: string }> {
  const failed = { status: 0, body: "" };
  return new Promise((resolve) => {
    const request = httpGet(url, { localAddress, agent: false, timeout: 5_000 }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (text: string) => (body += text.slice(0, 1024 - body.length)));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      response.on("error", () => resolve(failed));
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(failed));
  });
}

/**
 * The official client's transport contract over a child process we spawned ourselves
 * (newline-delimited JSON on its stdin/stdout), so the test keeps the process handle and
 * sees its exit code, which the client's own stdio transport does not expose.
 */
export class ChildStdioTransport implements SdkTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: SdkTransport["onmessage"];
  #buffer = "";

  constructor(private readonly child: ChildProcess) {}

  async start(): Promise<void> {
    this.child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      this.#buffer += chunk;
      let newline: number;
      while ((newline = this.#buffer.indexOf("\n")) !== -1) {
        const line = this.#buffer.slice(0, newline).trim();
        this.#buffer = this.#buffer.slice(newline + 1);
        if (line === "") continue;
        try {
          this.onmessage?.(JSON.parse(line));
        } catch (error) {
          this.onerror?.(error as Error);
        }
      }
    });
    this.child.stdout!.once("end", () => this.onclose?.());
  }

  async send(message: Parameters<SdkTransport["send"]>[0]): Promise<void> {
    if (this.child.stdin!.writable) this.child.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    this.child.stdin!.end();
  }
}

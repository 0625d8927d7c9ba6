/**
 * Shared by the scaffolding tests: run the CLIs from this checkout (TypeScript through
 * tsx), make temp folders that are removed afterwards, and run npm quietly from the cache.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { cpSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { mcpGenOnPath } from "../../support/mcp-gen-bin.js";
import { repoRoot, schemaPath } from "../../support/schemas.js";
export { tempFolder } from "../../support/temp-folder.js";

const tsx = import.meta.resolve("tsx");

// A project's own `node --test` must report as a top-level run, not into this one.
const { NODE_TEST_CONTEXT: _parentRunner, ...ownEnv } = process.env;

/**
 * A project made from this checkout unbuilt depends on it as `file:`, which gets no
 * `mcp-gen` bin (dist/cli/main.js is not there), and its build script runs `mcp-gen
 * prebundle`: the checkout's CLI is put on PATH for it. A project's own bin, where it has
 * one (made from a built checkout), still comes first.
 */
const checkoutCli = mcpGenOnPath();
process.once("exit", checkoutCli.remove);

/** npm from the local cache, without audit, fund or update chatter. */
export const npmEnv: NodeJS.ProcessEnv = {
  ...ownEnv,
  ...checkoutCli.env,
  npm_config_prefer_offline: "true",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
  npm_config_loglevel: "error",
};

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function result(run: SpawnSyncReturns<string>): Run {
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Runs `create-mcp-handler` from this checkout (`env` added to npmEnv); stdin is a pipe, so never a TTY. */
export function runCreate(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Run {
  return result(
    spawnSync(process.execPath, ["--import", tsx, join(repoRoot, "cli", "create.ts"), ...args], {
      cwd,
      encoding: "utf8",
      env: { ...npmEnv, ...env },
      timeout: 120_000,
    }),
  );
}

/** Runs `mcp-gen` from this checkout (`env` added to this process's environment). */
export function runMcpGen(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Run {
  return result(
    spawnSync(process.execPath, ["--import", tsx, join(repoRoot, "cli", "main.ts"), ...args], {
      cwd,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, ...env },
    }),
  );
}

/** Runs `mcp-gen` from this checkout as its own process, without waiting: for runs started together. */
export function startMcpGen(args: string[], cwd: string, timeout = 240_000): Promise<Run> {
  const child = spawn(process.execPath, ["--import", tsx, join(repoRoot, "cli", "main.ts"), ...args], { cwd, stdio: ["ignore", "pipe", "pipe"], timeout });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once("close", (status) => resolve({ status, stdout, stderr })));
}

/** `$MCP_SCHEMAS_DIR` for a child: the folder holding <revision>/schema.json for the pinned revisions. */
export function schemasDir(): string {
  return dirname(dirname(schemaPath("2026-07-28")));
}

/** Runs a command (npm, npx, tsc) in `cwd`; the output is kept for assertion messages. */
export function runIn(cwd: string, command: string, args: string[], timeout = 180_000): Run {
  return result(spawnSync(command, args, { cwd, encoding: "utf8", env: npmEnv, timeout }));
}

/** One line for an assertion message: the command's output when it failed. */
export function explain(run: Run): string {
  return `exit ${run.status}\n--- stdout\n${run.stdout.slice(-4000)}\n--- stderr\n${run.stderr.slice(-4000)}`;
}

/** Resolves with `promise`, or with `fallback` once `ms` have passed: for bounded cleanup. */
export function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  return Promise.race([promise, new Promise<T>((resolve) => setTimeout(() => resolve(fallback), ms).unref())]);
}

/**
 * The endpoint a scaffolded HTTP server started with PORT=0 reports once it listens: the
 * kernel's choice, so no port is taken ahead of the server for another process to grab.
 */
export async function servedAt(server: { waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray> }, timeoutMs?: number): Promise<URL> {
  const [, url] = await server.waitFor(/serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/, timeoutMs);
  return new URL(url!);
}

/**
 * Starts a long-running process; `waitFor(pattern)` resolves once stderr matched it, and
 * `stop(signal)` resolves with the exit code. Bounded: gives up after `timeoutMs`.
 */
export function startProcess(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  // Its own process group, so that a signal reaches `npm start` and the server under it.
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdout.resume();
  return {
    child,
    get stderr() {
      return stderr;
    },
    waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${pattern} on stderr within ${timeoutMs} ms:\n${stderr}`)), timeoutMs);
        const check = () => {
          const match = pattern.exec(stderr);
          if (!match) return;
          clearTimeout(timer);
          child.stderr.off("data", check);
          resolve(match);
        };
        child.stderr.on("data", check);
        exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`exited before ${pattern}:\n${stderr}`));
        });
        check();
      });
    },
    async stop(signal: NodeJS.Signals = "SIGTERM", timeoutMs = 15_000): Promise<number | null> {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const signalGroup = (sent: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, sent);
        } catch {
          // the group is already gone
        }
      };
      signalGroup(signal);
      const timer = setTimeout(() => signalGroup("SIGKILL"), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/**
 * A built copy of this checkout's sources at `<dir>/source` (this checkout's dist/ is left
 * alone), as a user's `npm ci && npm run build` leaves one (tsc, then the stored
 * templates); returns its folder.
 */
export function builtCopy(dir: string): string {
  const source = join(dir, "source");
  for (const entry of ["package.json", "README.md", "tsconfig.json", "tsconfig.build.json", "cli", "generated", "templates", "schemas", "packages"]) {
    cpSync(join(repoRoot, entry), join(source, entry), { recursive: true });
  }
  symlinkSync(join(repoRoot, "node_modules"), join(source, "node_modules"));
  const build = runIn(source, join(repoRoot, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json"], 300_000);
  if (build.status !== 0) throw new Error(`the copy did not build: ${explain(build)}`);
  const templates = runIn(source, process.execPath, [join("dist", "cli", "build-finish.js")]);
  if (templates.status !== 0) throw new Error(`the copy's templates were not stored: ${explain(templates)}`);
  return source;
}

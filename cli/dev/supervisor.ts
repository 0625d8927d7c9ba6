/**
 * `mcp-gen dev`: the process an MCP client spawns over stdio. It runs the project's build
 * in watch mode, serves the client from the built server running as its child, and after
 * each successful build starts a new child and hands it the client (relay.ts). A build that
 * fails to type-check emits nothing, so the running child goes on serving.
 *
 * stdout carries only the relayed JSON-RPC; everything else (tsc, the child's stderr, what
 * the relay has to say) goes to stderr. The client's input ending ends everything.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { LineSplitter } from "../../packages/runtime/src/transports/lines.js";
import { DEFAULT_MAX_LINE } from "../../packages/runtime/src/transports/ndjson.js";
import { watchBuild } from "./build-watch.js";
import { DevRelay, type ChildLink } from "./relay.js";

export interface DevOptions {
  projectDir: string;
  tsconfig: string;
  /** The built server's entry, relative to the project. */
  entry: string;
  serverArgs: string[];
  /** How long after the last successful build a restart waits: builds closer together make one. */
  restartQuietMs?: number;
}

/**
 * A restart waits this long after the last successful build, so builds closer together make
 * one restart: one save often ends two builds (a file written in two steps), and a second
 * restart would cut the requests the client sent on hearing of the first. So restarts come at
 * most this often.
 */
export const RESTART_QUIET_MS = 250;
/** How long a replaced child has to exit once its input ended, before it is killed. */
const STOP_GRACE_MS = 2_000;

interface RunningChild {
  readonly process: ChildProcess;
  readonly link: ChildLink;
}

/** Serves the client on stdin/stdout until its input ends. */
export async function runDev(options: DevOptions): Promise<void> {
  const log = (message: string) => process.stderr.write(`${message}\n`);
  const relay = new DevRelay({ toClient: (line) => writeToClient(line), log });
  let current: RunningChild | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let closing = false;
  const quietMs = options.restartQuietMs ?? RESTART_QUIET_MS;

  const writeToClient = (line: string) => {
    // A client that stops reading stops the servers' output too, so nothing piles up here.
    if (!process.stdout.write(`${line}\n`) && current !== undefined) {
      const paused = current.process.stdout!;
      paused.pause();
      process.stdout.once("drain", () => paused.resume());
    }
  };

  const start = () => {
    restartTimer = undefined;
    if (closing) return;
    const entry = join(options.projectDir, options.entry);
    if (!existsSync(entry)) return log(`mcp-gen dev: ${options.entry} is not there after the build; is --entry right?`);
    const previous = current;
    if (previous !== undefined) {
      relay.detach("the server was reloaded (mcp-gen dev)", true);
      stopChild(previous.process);
    }
    current = startChild(options, relay, (child, code, signal) => {
      if (current?.process !== child || closing) return;
      current = undefined;
      relay.detach(`the server exited (${signal ?? `code ${code}`})`, false);
      log(`mcp-gen dev: the server exited (${signal ?? `code ${code}`}); waiting for the next successful build`);
    });
    relay.attach(current.link);
    log(previous === undefined ? "mcp-gen dev: server started" : "mcp-gen dev: server reloaded");
  };

  const onBuilt = (errors: number) => {
    if (errors > 0) return log(`mcp-gen dev: the build has ${errors} error${errors === 1 ? "" : "s"}; the running server keeps serving the last good build`);
    clearTimeout(restartTimer);
    restartTimer = setTimeout(start, quietMs);
  };

  const build = watchBuild(options.projectDir, options.tsconfig, onBuilt, (code) => {
    if (!closing) log(`mcp-gen dev: tsc --watch exited (code ${code}); the running server is no longer reloaded`);
  });

  const input = new LineSplitter(DEFAULT_MAX_LINE);
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) =>
    input.push(
      chunk,
      (line) => line.trim() !== "" && relay.fromClient(line),
      () => log(`mcp-gen dev: dropped a client line longer than ${DEFAULT_MAX_LINE} characters`),
    ),
  );
  await new Promise<void>((resolve) => {
    const end = () => resolve();
    process.stdin.once("end", end);
    process.stdin.once("close", end);
    process.once("SIGINT", end);
    process.once("SIGTERM", end);
  });
  closing = true;
  process.stdin.destroy();
  clearTimeout(restartTimer);
  build.stop();
  if (current !== undefined) await stopChild(current.process);
}

function startChild(options: DevOptions, relay: DevRelay, onExit: (child: ChildProcess, code: number | null, signal: NodeJS.Signals | null) => void): RunningChild {
  const child = spawn(process.execPath, ["--enable-source-maps", options.entry, ...options.serverArgs], {
    cwd: options.projectDir,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const link: ChildLink = {
    send: (line) => {
      if (child.stdin!.writable) child.stdin!.write(`${line}\n`);
    },
  };
  child.stdin!.on("error", () => {}); // a child that died: its exit is reported below
  const lines = new LineSplitter(DEFAULT_MAX_LINE);
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) =>
    lines.push(
      chunk,
      (line) => line.trim() !== "" && relay.fromChild(link, line),
      () => relay.output.log(`mcp-gen dev: dropped a server line longer than ${DEFAULT_MAX_LINE} characters`),
    ),
  );
  child.once("exit", (code, signal) => onExit(child, code, signal));
  return { process: child, link };
}

/** Ends a child's input (a stdio server shuts down on it), then kills it if it lingers. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stdin!.end();
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
  return exited.finally(() => clearTimeout(timer));
}

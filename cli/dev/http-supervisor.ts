/**
 * `mcp-gen dev --http`: an HTTP project's `npm run dev`. It runs the project's build in
 * watch mode and serves HOST:PORT itself (http-front.ts), relaying to the built server
 * running as its child on a port of its own on 127.0.0.1. After each successful build it
 * replaces the child: the address stays, requests meanwhile wait for the new server, and a
 * 2026-07-28 client's listen stream goes on (opened again on the new server, the client told
 * its lists changed). A build that fails to type-check emits nothing, so the running child
 * goes on serving.
 *
 * The child's output goes to stderr; its "serving MCP on" line names the address clients use.
 * SIGINT or SIGTERM ends everything.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { LineSplitter } from "../../packages/runtime/src/transports/lines.js";
import { CliError } from "../errors.js";
import { watchBuild } from "./build-watch.js";
import { DevFront } from "./http-front.js";
import { RESTART_QUIET_MS, type DevOptions } from "./supervisor.js";

/** How long a replaced child has to exit after SIGTERM, before it is killed. */
const STOP_GRACE_MS = 2_000;
/** The server's line once it listens (src/serve/http.ts): the rest of the line is kept. */
const SERVING_LINE = /^serving MCP on (http:\/\/\S+)(.*)$/;
/** A line of the child's stderr longer than this is passed on in pieces, unread. */
const MAX_LOG_LINE = 64 * 1024;

export interface HttpDevOptions extends DevOptions {
  /** Where clients connect: HOST and PORT as the server itself reads them. */
  host: string;
  port: number;
}

/** Serves HOST:PORT until SIGINT or SIGTERM. */
export async function runHttpDev(options: HttpDevOptions): Promise<void> {
  const log = (message: string) => process.stderr.write(`${message}\n`);
  const front = new DevFront();
  await listen(front, options);
  let current: ChildProcess | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let closing = false;

  const start = async () => {
    restartTimer = undefined;
    if (closing) return;
    const entry = join(options.projectDir, options.entry);
    if (!existsSync(entry)) return log(`mcp-gen dev: ${options.entry} is not there after the build; is --entry right?`);
    const previous = current;
    current = undefined;
    if (previous !== undefined) {
      front.reload();
      await stopChild(previous);
      if (closing || restartTimer !== undefined) return; // a newer build starts its own
    }
    const child: ChildProcess = startChild(options, front, () => current === child);
    current = child;
    child.once("exit", (code, signal) => {
      if (current !== child || closing) return;
      current = undefined;
      const how = signal ?? `code ${code}`;
      front.down(`the server exited (${how}); mcp-gen dev starts it again after the next successful build`);
      log(`mcp-gen dev: the server exited (${how}); waiting for the next successful build`);
    });
    log(previous === undefined ? "mcp-gen dev: server started" : "mcp-gen dev: server reloaded");
  };

  const onBuilt = (errors: number) => {
    if (errors > 0) return log(`mcp-gen dev: the build has ${errors} error${errors === 1 ? "" : "s"}; the running server keeps serving the last good build`);
    clearTimeout(restartTimer);
    restartTimer = setTimeout(() => void start(), options.restartQuietMs ?? RESTART_QUIET_MS);
  };

  const build = watchBuild(options.projectDir, options.tsconfig, onBuilt, (code) => {
    if (!closing) log(`mcp-gen dev: tsc --watch exited (code ${code}); the running server is no longer reloaded`);
  });
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  closing = true;
  clearTimeout(restartTimer);
  build.stop();
  front.close();
  if (current !== undefined) await stopChild(current);
}

async function listen(front: DevFront, options: HttpDevOptions): Promise<void> {
  const where = `${options.host}:${options.port}`;
  try {
    await new Promise<void>((resolve, reject) => {
      front.server.once("error", reject);
      front.server.listen(options.port, options.host, () => {
        front.server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new CliError(`${where} is already in use`, { hint: "stop what listens there, or set PORT to another port", exitCode: 1 });
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") throw new CliError(`HOST=${options.host} is not an address of this machine`, { hint: "set HOST to one, e.g. 127.0.0.1", exitCode: 1 });
    throw error;
  }
}

/**
 * Starts the built server on a port of its own; once it says where it serves, the front sends
 * requests there, and the line is shown with the front's address (the one clients use).
 */
function startChild(options: HttpDevOptions, front: DevFront, isCurrent: () => boolean): ChildProcess {
  const child = spawn(process.execPath, ["--enable-source-maps", options.entry, ...options.serverArgs], {
    cwd: options.projectDir,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0" },
    stdio: ["ignore", "inherit", "pipe"],
  });
  const lines = new LineSplitter(MAX_LOG_LINE);
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) =>
    lines.push(
      chunk,
      (line) => {
        const serving = SERVING_LINE.exec(line);
        if (serving === null || !isCurrent()) return void process.stderr.write(`${line}\n`);
        const url = new URL(serving[1]!);
        front.serve(url);
        const address = (front.server.address() as { port: number }).port;
        process.stderr.write(`serving MCP on http://${options.host}:${address}${url.pathname}${serving[2]}\n`);
      },
      () => process.stderr.write(`mcp-gen dev: a server log line longer than ${MAX_LOG_LINE} characters was left out\n`),
    ),
  );
  return child;
}

/** SIGTERM (the server's graceful shutdown, with no drain in dev), then SIGKILL if it lingers. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
  return exited.finally(() => clearTimeout(timer));
}

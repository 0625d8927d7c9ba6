import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.js";

/** A real HAProxy (the Debian package) in front of replicas on loopback, owned by one test. */
export interface Balancer {
  readonly port: number;
  /** `http://127.0.0.1:<port>`, where clients connect. */
  readonly url: string;
  /** The config file HAProxy runs, as written (for failure messages). */
  readonly config: string;
  /** One command to HAProxy's runtime API (e.g. `show servers state`), its answer as text. */
  command(line: string): Promise<string>;
  /** Whether HAProxy currently counts replica `r<index>` as up (its last health check passed). */
  isUp(index: number): Promise<boolean>;
  /** Waits (up to `timeoutMs`, default 10 s) until replica `r<index>` is up or down as asked. */
  waitFor(index: number, up: boolean, timeoutMs?: number): Promise<void>;
  /** Stops HAProxy and removes its temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

export interface BalancerOptions {
  /** The replicas' ports on 127.0.0.1, one `server` line each (named r0, r1, ...). */
  readonly backends: readonly number[];
  /** A path HAProxy health-checks with GET (e.g. `/readyz`); none means no checks. */
  readonly healthPath?: string;
  /** Health check interval in ms. Default 250. */
  readonly checkIntervalMs?: number;
  /** Extra lines for the backend section (retries, `retry-on`, `balance`, stickiness...). */
  readonly backendLines?: readonly string[];
}

const START_TIMEOUT_MS = 10_000;

/** Whether `haproxy` is installed (`.ci/run` installs it); tests skip with this reason otherwise. */
export function haproxyMissing(): string | false {
  const probe = spawnSync("haproxy", ["-v"], { encoding: "utf8" });
  return probe.status === 0 ? false : "haproxy is not installed (apt-get install haproxy, as .ci/run does)";
}

function configFor(port: number, socket: string, options: BalancerOptions): string {
  const interval = options.checkIntervalMs ?? 250;
  const check = options.healthPath === undefined ? "" : ` check inter ${interval}ms fall 1 rise 1`;
  return [
    "global",
    `  stats socket ${socket} mode 600 level admin`,
    "  maxconn 8192",
    "defaults",
    "  mode http",
    "  timeout connect 2s",
    "  timeout client 5m",
    "  timeout server 5m",
    "  timeout http-request 30s",
    // As the README recipe: a check answered late is not failed (inter alone would be its whole time).
    "  timeout check 3s",
    "  option http-no-delay",
    "frontend mcp",
    `  bind 127.0.0.1:${port}`,
    "  default_backend replicas",
    "backend replicas",
    "  balance roundrobin",
    ...(options.healthPath === undefined ? [] : [`  option httpchk GET ${options.healthPath}`, "  http-check expect status 200"]),
    ...(options.backendLines ?? []).map((line) => `  ${line}`),
    ...options.backends.map((backend, i) => `  server r${i} 127.0.0.1:${backend}${check}`),
    "",
  ].join("\n");
}

/** Starts HAProxy in the foreground on a free loopback port and waits until it accepts. */
export function startBalancer(options: BalancerOptions): Promise<Balancer> {
  return startHaproxy((port, socket) => configFor(port, socket, options));
}

/**
 * Starts HAProxy on a config of one's own (a documented recipe, say): `makeConfig` gets the
 * free port to bind and the admin socket to declare. Its backend must be named `replicas`
 * and its servers `r0`, `r1`, ... for `isUp` and `waitFor`.
 */
export async function startHaproxy(makeConfig: (port: number, socket: string) => string): Promise<Balancer> {
  // A free port can be taken by a test running beside this one before HAProxy binds it; HAProxy
  // then exits naming the bind, and a fresh port is tried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(makeConfig);
    } catch (error) {
      if (!(error instanceof BindFailed) || attempt === START_ATTEMPTS) throw error;
    }
  }
}

const START_ATTEMPTS = 3;

class BindFailed extends Error {}

async function startOnce(makeConfig: (port: number, socket: string) => string): Promise<Balancer> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-gen-haproxy-"));
  const port = await freePort();
  const socket = join(dir, "admin.sock");
  const config = makeConfig(port, socket);
  const file = join(dir, "haproxy.cfg");
  writeFileSync(file, config);
  const child = spawn("haproxy", ["-db", "-f", file], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-8192);
  });
  const stop = async () => {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilServing(port, socket, child, () => stderr);
  } catch (error) {
    await stop();
    const message = `${(error as Error).message}\n--- haproxy.cfg ---\n${config}`;
    throw /cannot bind|Address already in use/i.test(stderr) ? new BindFailed(message) : new Error(message);
  }
  // An admin command that cannot reach HAProxy says why: its exit and its last words.
  const command = (line: string) =>
    adminCommand(socket, line).catch((error: Error) => {
      const state = child.exitCode === null && child.signalCode === null ? "still running" : `exited (${child.exitCode ?? child.signalCode})`;
      throw new Error(`haproxy's admin socket did not answer "${line}": ${error.message}; haproxy ${state}; stderr: ${stderr}`);
    });
  const isUp = async (index: number) => operationalState(await command("show servers state replicas"), `r${index}`) === 2;
  const waitFor = async (index: number, up: boolean, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while ((await isUp(index)) !== up) {
      if (Date.now() > deadline) throw new Error(`haproxy did not see r${index} ${up ? "up" : "down"} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { port, url: `http://127.0.0.1:${port}`, config, command, isUp, waitFor, stop };
}

/** `srv_op_state` (0 stopped, 2 running) of one server in `show servers state` output. */
function operationalState(table: string, server: string): number | undefined {
  for (const line of table.split("\n")) {
    const fields = line.split(" "); // be_id be_name srv_id srv_name srv_addr srv_op_state ...
    if (fields[3] === server) return Number(fields[5]);
  }
  return undefined;
}

/**
 * Serving means the admin socket answers (so this HAProxy bound everything it declares, since
 * it binds all listeners before serving any) and the port accepts. A port that accepts while
 * the socket is silent may be another process's.
 */
async function waitUntilServing(port: number, socket: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`haproxy exited with ${child.exitCode ?? child.signalCode}: ${stderr()}`);
    const answered = await adminCommand(socket, "show info").then(
      (info) => info.includes("Name: HAProxy"),
      () => false,
    );
    if (answered && (await accepts(port))) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`haproxy did not serve on 127.0.0.1:${port} within ${START_TIMEOUT_MS} ms: ${stderr()}`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function adminCommand(socket: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const conn = connect(socket);
    let answer = "";
    conn.setEncoding("utf8");
    conn.on("data", (chunk: string) => (answer += chunk));
    conn.once("error", reject);
    conn.once("end", () => resolve(answer));
    conn.once("connect", () => conn.end(`${line}\n`));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
  await exited;
  clearTimeout(timer);
}

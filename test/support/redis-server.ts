import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "redis";
import { freePort } from "./ports.js";

/** A real redis-server owned by one test: loopback only, no persistence, its own temp dir. */
export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>`, what REDIS_URL is set to for servers under test. */
  readonly url: string;
  /** Whether the broker process is up right now. */
  readonly running: boolean;
  /** SIGKILLs the broker (an abrupt outage: no goodbye to clients) and waits for it to exit. */
  kill(): Promise<void>;
  /**
   * Starts the broker again on the same port (after kill). `appendOnly`: with an append-only
   * file (fsync on every write), so what it held before a later kill is there after the next
   * restart; without it (the default) a restart starts empty.
   */
  restart(options?: { appendOnly?: boolean }): Promise<void>;
  /**
   * Freezes the running broker (SIGSTOP): connections stay open and nothing is answered, as
   * behind a partition. `thaw` (SIGCONT) lets it go on; `stop` and `kill` thaw it first.
   */
  freeze(): void;
  thaw(): void;
  /** Stops the broker if it runs and removes its temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;

/** True when the `redis-server` binary is on PATH. */
export function redisServerInstalled(): boolean {
  return spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
}

/** Starts redis-server on a free loopback port; the caller must `stop()` it (use `after`). */
export async function startRedisServer(): Promise<RedisServer> {
  if (!redisServerInstalled()) {
    throw new Error("redis-server is not installed; run `apt-get install -y redis-server` (.ci/run does it)");
  }
  const dir = mkdtempSync(join(tmpdir(), "mcp-gen-redis-"));
  let port = 0;
  let child: ChildProcess | undefined;
  // The port can be taken between probing and binding; a few fresh ports settle it.
  for (let attempt = 0; attempt < 5 && child === undefined; attempt++) {
    port = await freePort();
    child = await launch(port, dir).catch(() => undefined);
  }
  if (child === undefined) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error("redis-server did not start on a free loopback port after 5 attempts");
  }
  let current: ChildProcess | undefined = child;

  const kill = async () => {
    const proc = current;
    current = undefined;
    proc?.kill("SIGCONT"); // a frozen broker still dies of SIGKILL; thawed, it leaves no stopped process behind either way
    if (proc !== undefined) await terminate(proc, "SIGKILL");
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return current !== undefined;
    },
    kill,
    async restart(options = {}) {
      if (current !== undefined) throw new Error("redis-server is still running; kill() it first");
      current = await launch(port, dir, options.appendOnly === true);
    },
    freeze() {
      if (current === undefined) throw new Error("redis-server is not running");
      current.kill("SIGSTOP");
    },
    thaw() {
      current?.kill("SIGCONT");
    },
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Spawns one redis-server and resolves once it accepts connections. */
function launch(port: number, dir: string, appendOnly = false): Promise<ChildProcess> {
  const persistence = appendOnly ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"];
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", ...persistence, "--daemonize", "no", "--logfile", ""];
  const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let output = "";
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`redis-server on port ${port} ${why}: ${output.trim().split("\n").slice(-3).join(" | ")}`));
    };
    const timer = setTimeout(() => fail("did not become ready in time"), START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        child.stdout?.resume(); // keep draining so the broker never blocks on a full pipe
        child.off("exit", onExit);
        resolve(child);
      }
    };
    const onExit = (code: number | null) => fail(`exited early with code ${code}`);
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", onExit);
  });
}

function terminate(proc: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proc.once("exit", () => resolve());
    proc.kill(signal);
  });
}

/** How many connections are subscribed to a Redis channel right now (0 while it is down). */
export async function subscriberCount(url: string, channel: string): Promise<number> {
  const admin = createClient({ url, socket: { reconnectStrategy: false } });
  admin.on("error", () => {});
  try {
    await admin.connect();
    const counts = await admin.pubSubNumSub(channel);
    return Number(Object.values(counts)[0] ?? 0);
  } catch {
    return 0;
  } finally {
    if (admin.isOpen) admin.destroy();
  }
}

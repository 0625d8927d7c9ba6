import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { redisServerInstalled } from "./redis-server.js";
import { freePort } from "./ports.js";

/**
 * A real Redis Cluster owned by one test: 3 masters and 3 replicas on loopback, no persistence,
 * one temp dir, every node asking for `PASSWORD` (so a client must pass a URL's credentials on
 * to the nodes it discovers).
 */
export interface RedisCluster {
  readonly ports: readonly number[];
  /** `redis+cluster://:<password>@127.0.0.1:<p1>,...`: what REDIS_URL is set to for a cluster. */
  readonly url: string;
  /** Stops every node and removes the temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

const NODES = 6;
const PASSWORD = "cluster-secret";
/** What every redis-cli call here starts with. */
const CLI = ["--no-auth-warning", "-a", PASSWORD];
const START_TIMEOUT_MS = 20_000;

/** Starts six nodes, joins them (`redis-cli --cluster create`, one replica each) and waits for cluster_state:ok on all. */
export async function startRedisCluster(): Promise<RedisCluster> {
  if (!redisServerInstalled()) throw new Error("redis-server is not installed; run `apt-get install -y redis-server` (.ci/run does it)");
  const dir = mkdtempSync(join(tmpdir(), "mcp-gen-redis-cluster-"));
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(children.splice(0).map(terminate));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ports: number[] = [];
    for (let index = 0; index < NODES; index++) {
      const port = await freePort();
      children.push(await launch(port, dir));
      ports.push(port);
    }
    const create = spawnSync(
      "redis-cli",
      [...CLI, "--cluster", "create", ...ports.map((port) => `127.0.0.1:${port}`), "--cluster-replicas", "1", "--cluster-yes"],
      { encoding: "utf8", timeout: START_TIMEOUT_MS },
    );
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${(create.stdout + create.stderr).trim().split("\n").slice(-3).join(" | ")}`);
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!ports.every(clusterOk)) {
      if (Date.now() > deadline) throw new Error(`the cluster on ports ${ports.join(",")} did not reach cluster_state:ok in time`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { ports, url: `redis+cluster://:${PASSWORD}@${ports.map((port) => `127.0.0.1:${port}`).join(",")}`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function clusterOk(port: number): boolean {
  const info = spawnSync("redis-cli", [...CLI, "-p", String(port), "cluster", "info"], { encoding: "utf8", timeout: 2000 });
  return info.status === 0 && info.stdout.includes("cluster_state:ok");
}

/** Which master port serves the slot of `key` (asked of the cluster itself). */
export function masterPortOf(port: number, key: string): number {
  const slot = spawnSync("redis-cli", [...CLI, "-p", String(port), "cluster", "keyslot", key], { encoding: "utf8", timeout: 2000 }).stdout.trim();
  const nodes = spawnSync("redis-cli", [...CLI, "-p", String(port), "cluster", "nodes"], { encoding: "utf8", timeout: 2000 }).stdout;
  for (const line of nodes.trim().split("\n")) {
    const fields = line.split(" ");
    if (!fields[2]?.includes("master")) continue;
    const owns = fields.slice(8).some((range) => {
      const [low, high = low] = range.split("-").map(Number);
      return Number(slot) >= low! && Number(slot) <= high!;
    });
    if (owns) return Number(fields[1]!.split(":")[1]!.split("@")[0]);
  }
  throw new Error(`no master serves the slot of ${key}`);
}

function launch(port: number, dir: string): Promise<ChildProcess> {
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--cluster-enabled",
    "yes",
    "--cluster-config-file",
    join(dir, `nodes-${port}.conf`),
    "--save",
    "",
    "--appendonly",
    "no",
    "--requirepass",
    PASSWORD,
    "--masterauth",
    PASSWORD,
    "--daemonize",
    "no",
    "--logfile",
    "",
  ];
  const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => (child.kill("SIGKILL"), reject(new Error(`cluster node on ${port} did not start: ${output.slice(-300)}`))),
      START_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes("Ready to accept connections")) return;
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stdout?.resume(); // keep draining so the node never blocks on a full pipe
      resolve(child);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`cluster node on ${port} exited with ${code}: ${output.slice(-300)}`))));
  });
}

function terminate(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proc.once("exit", () => resolve());
    proc.kill("SIGKILL");
  });
}

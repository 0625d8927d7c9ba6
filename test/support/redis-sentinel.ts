import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { redisServerInstalled } from "./redis-server.js";
import { freePort } from "./ports.js";

/** A real Redis master, one replica and three sentinels watching them, on loopback, owned by one test. */
export interface RedisSentinelSet {
  /** `redis+sentinel://127.0.0.1:<s1>,.../<name>`: what REDIS_URL is set to for it. */
  readonly url: string;
  /** The port of the master the sentinels name right now. */
  masterPort(): number | undefined;
  /** The port of the replica of the master the sentinels name right now (undefined while there is none). */
  replicaPort(): number | undefined;
  /** Whether the replica has every write the master has. */
  replicaCaughtUp(): boolean;
  /** SIGKILLs the current master and resolves once the sentinels name another (bounded in time). */
  failOver(): Promise<number>;
  /** SIGKILLs the current replica (the master stays); resolves with its port. */
  killReplica(): Promise<number>;
  /**
   * Asks the sentinels for a failover with the master alive (`SENTINEL FAILOVER`): the replica is
   * promoted and the old master, demoted, becomes its replica. Resolves with the new master's
   * port once the old one has synced from it (bounded in time).
   */
  switchOver(): Promise<number>;
  /**
   * Starts the node the last `failOver` or `killReplica` killed again on its port, empty and configured as a
   * master (as a crashed primary restarted from its own config comes back), and resolves once
   * the sentinels have turned it into a replica of the current master and it has synced.
   */
  restartKilled(): Promise<number>;
  /** One redis-cli command to the data node on `port`; its output as text. */
  cli(port: number, ...args: string[]): string;
  /** Stops every process and removes the temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

const NAME = "mcpmaster";
const TIMEOUT_MS = 30_000;

export async function startRedisSentinelSet(): Promise<RedisSentinelSet> {
  if (!redisServerInstalled()) throw new Error("redis-server is not installed; run `apt-get install -y redis-server` (.ci/run does it)");
  const dir = mkdtempSync(join(tmpdir(), "mcp-gen-redis-sentinel-"));
  const children = new Map<number, ChildProcess>();
  const stop = async () => {
    await Promise.all([...children.values()].map(terminate));
    children.clear();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const master = await freePort();
    children.set(master, await launch(master, [...dataArgs(master, dir)]));
    const replica = await freePort();
    children.set(replica, await launch(replica, [...dataArgs(replica, dir), "--replicaof", "127.0.0.1", String(master)]));
    const sentinels: number[] = [];
    for (let index = 0; index < 3; index++) {
      const port = await freePort();
      const config = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        config,
        [
          `port ${port}`,
          "bind 127.0.0.1",
          `sentinel monitor ${NAME} 127.0.0.1 ${master} 2`,
          `sentinel down-after-milliseconds ${NAME} 1000`,
          `sentinel failover-timeout ${NAME} 5000`,
          "",
        ].join("\n"),
      );
      children.set(port, await launch(port, [config, "--sentinel", "--dir", dir, "--logfile", ""]));
      sentinels.push(port);
    }
    const ask = (...args: string[]) => redisCli(sentinels[0]!, ["sentinel", ...args]);
    const masterPort = () => {
      const port = Number(ask("get-master-addr-by-name", NAME).split("\n")[1]);
      return Number.isInteger(port) && port > 0 ? port : undefined;
    };
    // Ready once the sentinels know the replica and each other (a failover needs both).
    await until(
      () => ask("replicas", NAME).includes(String(replica)) && ask("ckquorum", NAME).startsWith("OK"),
      "the sentinels did not see the replica and each other",
    );
    await until(() => redisCli(replica, ["info", "replication"]).includes("master_link_status:up"), "the replica did not sync");
    let killed: number | undefined;
    const replicaPort = () => {
      const other = masterPort() === master ? replica : master;
      return children.has(other) ? other : undefined;
    };
    const offset = (port: number, field: string) => Number(new RegExp(`(?:^|\n)${field}:(\\d+)`).exec(redisCli(port, ["info", "replication"]))?.[1] ?? -1);
    return {
      url: `redis+sentinel://${sentinels.map((port) => `127.0.0.1:${port}`).join(",")}/${NAME}`,
      masterPort,
      replicaPort,
      replicaCaughtUp() {
        const current = masterPort();
        const other = current === master ? replica : master;
        return current !== undefined && offset(current, "master_repl_offset") === offset(other, "slave_repl_offset");
      },
      async failOver() {
        const before = masterPort()!;
        await terminate(children.get(before)!);
        children.delete(before);
        killed = before;
        await until(() => masterPort() !== undefined && masterPort() !== before, "the sentinels did not fail over");
        const after = masterPort()!;
        await until(() => redisCli(after, ["role"]).startsWith("master"), "the promoted replica is not a master");
        return after;
      },
      async killReplica() {
        const port = replicaPort()!;
        await terminate(children.get(port)!);
        children.delete(port);
        killed = port;
        return port;
      },
      async switchOver() {
        const before = masterPort()!;
        await until(() => ask("failover", NAME).startsWith("OK"), "the sentinels refused a failover");
        await until(() => masterPort() !== undefined && masterPort() !== before, "the sentinels did not fail over");
        const after = masterPort()!;
        await until(() => {
          const info = redisCli(before, ["info", "replication"]);
          return info.includes("role:slave") && info.includes(`master_port:${after}`) && info.includes("master_link_status:up");
        }, "the old master did not become a replica of the new one");
        return after;
      },
      async restartKilled() {
        if (killed === undefined) throw new Error("no node was killed");
        const port = killed;
        children.set(port, await launch(port, dataArgs(port, dir)));
        killed = undefined;
        const current = masterPort();
        await until(() => {
          const info = redisCli(port, ["info", "replication"]);
          return info.includes("role:slave") && info.includes(`master_port:${current}`) && info.includes("master_link_status:up");
        }, "the sentinels did not turn the old master into a replica");
        return port;
      },
      cli: (port, ...args) => redisCli(port, args),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function dataArgs(port: number, dir: string): string[] {
  return ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--dbfilename", `dump-${port}.rdb`, "--save", "", "--appendonly", "no", "--logfile", ""];
}

function redisCli(port: number, args: string[]): string {
  return spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8", timeout: 2000 }).stdout ?? "";
}

async function until(check: () => boolean, failure: string): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(failure);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function launch(port: number, args: string[]): Promise<ChildProcess> {
  const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => (child.kill("SIGKILL"), reject(new Error(`redis on ${port} did not start: ${output.slice(-300)}`))), TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!/Ready to accept connections|Sentinel ID is/.test(output)) return;
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stdout?.resume(); // keep draining so the process never blocks on a full pipe
      resolve(child);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`redis on ${port} exited with ${code}: ${output.slice(-300)}`))));
  });
}

function terminate(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proc.once("exit", () => resolve());
    proc.kill("SIGKILL");
  });
}

/**
 * The replica-cost bench's replicas (run.ts): each a forked replica.ts, asked over IPC for its
 * heap, whether its session-store calls are done, and to publish a list change.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** A publish a replica refuses while it counts Redis as not answering is tried again, this often at most. */
const PUBLISH_ATTEMPTS = 40;
/** Publishes refused (not ready) and tried again: what the load did to readiness. */
export const refused = { publishes: 0 };

export interface Replica {
  readonly child: ChildProcess;
  readonly port: number;
  heap(): Promise<number>;
  fire(): Promise<void>;
  settled(): Promise<boolean>;
  stop(): void;
}

function ask<T>(child: ChildProcess, command: object, pick: (message: any) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`replica exited with ${code}`));
    const onMessage = (message: any) => {
      const value = pick(message);
      if (value === undefined) return;
      child.off("message", onMessage);
      child.off("exit", onExit);
      resolve(value);
    };
    child.on("message", onMessage);
    child.once("exit", onExit);
    child.send(command);
  });
}

export async function startReplica(redisUrl: string): Promise<Replica> {
  const child = fork(fileURLToPath(new URL("./replica.ts", import.meta.url)), [], {
    execArgv: ["--import", "tsx", "--expose-gc"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, REDIS_URL: redisUrl },
  });
  const port = await ask(child, {}, (message) => message.port as number | undefined);
  let stopping = false;
  child.once("exit", (code, signal) => void (stopping || process.stderr.write(`a replica exited (${code ?? signal}) during the round\n`)));
  return {
    child,
    port,
    heap: () => ask(child, { heap: true }, (message) => message.heapUsed as number | undefined),
    stop: () => {
      stopping = true;
      child.kill();
    },
    settled: () => ask(child, { settled: true }, (message) => message.settled as boolean | undefined),
    fire: async () => {
      // A replica whose event loop or Redis is too busy to answer its PING refuses to publish for a moment: counted, and tried again.
      for (let attempt = 1; ; attempt++) {
        const fired = await ask(child, { fire: true }, (message) => ("fired" in message ? (message as { fired: boolean; error?: string }) : undefined));
        if (fired.fired) return;
        refused.publishes++;
        if (attempt >= PUBLISH_ATTEMPTS) throw new Error(`publish failed ${attempt} times: ${fired.error}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
  };
}

import { Worker } from "node:worker_threads";
import { CliError } from "../errors.js";
import type { MapFiles } from "./emit-maps.js";
import type { MapsIR } from "./ir.js";

/**
 * The second core's work: the maps (ts-morph spends most of its time being imported, which
 * the thread starts at once, before the job arrives), then a share of the runtime files to
 * format, claimed through `next` like the main thread does.
 */
export interface SideJob {
  maps: MapsIR;
  shared: Array<[string, string]>;
  next: Int32Array;
}

export type SideMessage = { maps: MapFiles } | { formatted: Array<[string, string]> } | { error: { message: string; hint?: string; cli: boolean } };

export interface SideThread {
  /** Hands the thread its job; `maps` and `formatted` then settle. */
  start(job: SideJob): { maps: Promise<MapFiles>; formatted: Promise<Array<[string, string]>> };
  stop(): Promise<void>;
}

/** Starts the side thread (this module's sibling entry, from source or from the build). */
export function startSideThread(): SideThread {
  const fromSource = import.meta.url.endsWith(".ts");
  const entry = new URL(`./side-thread.worker.${fromSource ? "ts" : "js"}`, import.meta.url);
  const worker = fromSource
    ? // From source the thread registers the TypeScript loader (tsx) before loading its entry.
      new Worker(
        `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`,
        { eval: true },
      )
    : new Worker(entry);
  const replies: SideMessage[] = [];
  const waiting: Array<(reply: SideMessage) => void> = [];
  const deliver = (reply: SideMessage) => (waiting.length > 0 ? waiting.shift()!(reply) : replies.push(reply));
  worker.on("message", deliver);
  worker.on("error", (error) => deliver({ error: { message: error.stack ?? error.message, cli: false } }));
  worker.on("exit", (code) => deliver({ error: { message: `the side thread exited with code ${code} before replying`, cli: false } }));
  const nextReply = () => new Promise<SideMessage>((resolve) => (replies.length > 0 ? resolve(replies.shift()!) : waiting.push(resolve)));

  return {
    start(job) {
      worker.postMessage(job);
      const maps = nextReply().then((reply) => ("maps" in reply ? reply.maps : failure(reply)));
      const formatted = maps.then(nextReply).then((reply) => ("formatted" in reply ? reply.formatted : failure(reply)));
      formatted.catch(() => undefined); // the caller awaits both; an early failure must not go unhandled
      return { maps, formatted };
    },
    stop: async () => {
      worker.removeAllListeners();
      await worker.terminate();
    },
  };
}

function failure(reply: SideMessage): never {
  if (!("error" in reply)) throw new Error("side thread replied out of order");
  if (reply.error.cli) throw new CliError(reply.error.message, { hint: reply.error.hint });
  throw new Error(`side thread: ${reply.error.message}`);
}

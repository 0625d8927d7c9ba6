import { CliError } from "../errors.js";
import type { MapsIR } from "./ir.js";

/**
 * Work for the second core: the maps (ts-morph costs most of its time in its import) and a
 * share of the runtime files to format, claimed through `next` like the main thread does.
 */
export interface SideJob {
  maps: MapsIR;
  header: string;
  shared: Array<[string, string]>;
  next: Int32Array;
}

export type SideReply = { files: Array<[string, string]> } | { error: { message: string; hint?: string; cli: boolean } };

/** Runs a SideJob in a worker thread (this module's sibling entry, from source or from the build). */
export async function runSideThread(job: SideJob): Promise<Array<[string, string]>> {
  const { Worker } = await import("node:worker_threads");
  const fromSource = import.meta.url.endsWith(".ts");
  const entry = new URL(`./side-thread.worker.${fromSource ? "ts" : "js"}`, import.meta.url);
  const worker = fromSource
    ? // From source the thread registers the TypeScript loader (tsx) before loading its entry.
      new Worker(`import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`, { eval: true, workerData: job })
    : new Worker(entry, { workerData: job });
  try {
    const reply = await new Promise<SideReply>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the side thread exited with code ${code} before replying`)));
    });
    if ("files" in reply) return reply.files;
    if (reply.error.cli) throw new CliError(reply.error.message, { hint: reply.error.hint });
    throw new Error(`side thread: ${reply.error.message}`);
  } finally {
    await worker.terminate();
  }
}

// Worker-thread entry for startSideThread: load ts-morph at once, then, given the job, emit
// the maps and format runtime files until the shared list runs out.
import { parentPort } from "node:worker_threads";
import { CliError } from "../errors.js";
import { enableCompileCache } from "../compile-cache.js";
import { emitMaps } from "./emit-maps.js";
import { formatClaimed } from "./format.js";
import { loadTsMorph } from "./libraries.js";
import type { SideJob, SideMessage } from "./side-thread.js";

const port = parentPort!;
port.once("message", async (job: SideJob) => {
  const send = (message: SideMessage) => port.postMessage(message);
  try {
    send({ maps: await emitMaps(job.maps) });
    send({ formatted: await formatClaimed(job.shared, job.next) });
  } catch (error) {
    const cli = error instanceof CliError;
    send({
      error: {
        message: error instanceof Error ? (cli ? error.message : (error.stack ?? error.message)) : String(error),
        hint: cli ? error.hint : undefined,
        cli,
      },
    });
  }
});

enableCompileCache();
try {
  loadTsMorph(); // the job arrives meanwhile and waits for it
} catch {
  // a failed load resurfaces in emitMaps, which reports it
}

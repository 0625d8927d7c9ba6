// Worker-thread entry for startSideThread: import ts-morph at once, then, given the job, emit
// the maps and format runtime files until the shared list runs out.
import { parentPort } from "node:worker_threads";
import { CliError } from "../errors.js";
import { emitMaps } from "./emit-maps.js";
import { formatClaimed } from "./format.js";
import type { SideJob, SideMessage } from "./side-thread.js";

const port = parentPort!;
const warm = import("ts-morph");
warm.catch(() => undefined); // a failed import resurfaces in emitMaps

port.once("message", async (job: SideJob) => {
  const send = (message: SideMessage) => port.postMessage(message);
  try {
    send({ maps: await emitMaps(job.maps) });
    send({ formatted: await formatClaimed(job.shared, job.next) });
  } catch (error) {
    const cli = error instanceof CliError;
    send({ error: { message: error instanceof Error ? (cli ? error.message : (error.stack ?? error.message)) : String(error), hint: cli ? error.hint : undefined, cli } });
  }
});

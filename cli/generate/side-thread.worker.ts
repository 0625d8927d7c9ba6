// Worker-thread entry for runSideThread: emit and format the maps, then format runtime files
// until the shared list runs out.
import { parentPort, workerData } from "node:worker_threads";
import { CliError } from "../errors.js";
import { emitMaps } from "./emit-maps.js";
import { formatClaimed, formatFiles } from "./format.js";
import type { SideJob, SideReply } from "./side-thread.js";

const job = workerData as SideJob;
let reply: SideReply;
try {
  const maps = await emitMaps(job.maps);
  const formatted = await formatFiles(new Map(Object.entries(maps).map(([path, text]) => [path, job.header + text])));
  reply = { files: [...formatted, ...(await formatClaimed(job.shared, job.next))] };
} catch (error) {
  const cli = error instanceof CliError;
  reply = { error: { message: error instanceof Error ? (cli ? error.message : (error.stack ?? error.message)) : String(error), hint: cli ? error.hint : undefined, cli } };
}
parentPort!.postMessage(reply);

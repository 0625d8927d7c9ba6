// Worker-thread entry: emits the maps off the main thread, so that importing ts-morph
// overlaps with json-schema-to-typescript and prettier there.
import { parentPort, workerData } from "node:worker_threads";
import { emitMaps } from "./emit-maps.js";
import type { MapsIR } from "./ir.js";

try {
  parentPort!.postMessage({ files: await emitMaps(workerData as MapsIR) });
} catch (error) {
  parentPort!.postMessage({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}

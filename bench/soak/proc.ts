/** What the soaks read about a server process from /proc (Linux): its memory and CPU time. */
import { readdirSync, readFileSync } from "node:fs";

/** Resident set size in bytes. */
export function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(line?.split(/\s+/)[1]) * 1024;
}

/** CPU time the process has used so far, in ms, summed over its threads (ns precision). */
export function cpuMs(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return ns / 1e6;
}

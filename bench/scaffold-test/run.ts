/**
 * How long a fresh scaffold's own `npm test` takes, wall time, as its user runs it: the
 * build (`tsc`, incremental after the first run) and the project's tests under `node --test`.
 * A test that leaves a timer or a socket behind shows up here as idle seconds, since node
 * waits for them before it exits. Each transport's scaffold is made and installed in a temp
 * folder (removed afterwards); the first run builds from nothing, the others are what a user
 * gets on rerunning. Reports the first run, then min and median of the rest; `--busy` keeps
 * the other core busy.
 *
 *   node --import tsx bench/scaffold-test/run.ts [--runs 5] [--transports stdio,http] [--busy]
 *
 * The scaffold's runtime and mcp-gen come from the tarballs `npm run build` packs, so build
 * after editing the runtime or the templates. Every run is bounded. Not part of the test suite.
 */
import { spawn, spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { explain, npmEnv, runCreate, tempFolder } from "../../test/cli/scaffold/helpers.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    transports: { type: "string", default: "stdio,http" },
    busy: { type: "boolean", default: false },
  },
});
const RUNS = Number(values.runs);
if (!Number.isInteger(RUNS) || RUNS < 2 || RUNS > 50) throw new Error("--runs takes a whole number from 2 to 50");
const TRANSPORTS = values.transports.split(",");
for (const transport of TRANSPORTS) {
  if (!["stdio", "http", "both"].includes(transport)) throw new Error(`--transports takes stdio, http or both, not ${JSON.stringify(transport)}`);
}
/** One `npm test` run, the first build included, may take this long. */
const RUN_TIMEOUT_MS = 300_000;

/** The wall time of one `npm test` in `app`; a failing run stops the bench with its output. */
function timedTest(app: string): number {
  const started = performance.now();
  const run = spawnSync("npm", ["test"], { cwd: app, env: npmEnv, encoding: "utf8", timeout: RUN_TIMEOUT_MS });
  const elapsed = Math.round(performance.now() - started);
  if (run.status !== 0) throw new Error(`npm test failed in ${app}: ${explain({ status: run.status, stdout: run.stdout, stderr: run.stderr })}`);
  return elapsed;
}

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `min ${sorted[0]} ms, median ${sorted[Math.floor(sorted.length / 2)]} ms (${sorted.length} runs)`;
}

async function main(): Promise<void> {
  const temp = tempFolder("bench-scaffold-test");
  const spinner = values.busy ? spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }) : undefined;
  try {
    console.log(`node ${process.version}, ${values.busy ? "another core busy" : "quiet"} (load ${loadavg()[0]!.toFixed(1)})`);
    for (const transport of TRANSPORTS) {
      const app = join(temp.dir, `app-${transport}`);
      const created = runCreate([app, "--yes", "--no-git", "--transport", transport], temp.dir);
      if (created.status !== 0) throw new Error(`create-mcp-handler failed: ${explain(created)}`);
      const first = timedTest(app);
      const again = Array.from({ length: RUNS - 1 }, () => timedTest(app));
      console.log(`${transport} scaffold, npm test: first run ${first} ms (build from nothing); again: ${summary(again)}`);
    }
  } finally {
    spinner?.kill();
    temp.remove();
  }
}

await main();

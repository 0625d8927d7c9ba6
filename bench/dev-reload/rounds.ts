/**
 * What both dev-reload benches share: the flags, a fresh scaffold of the asked transport in a
 * temp folder, and the rounds. Each round rewrites the `ask_name` tool's description in
 * src/tools/ask-name.ts (the save), then lists tools every 25 ms until the description listed
 * is the new one; the script says how its client starts the dev loop and lists.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { explain, runCreate, tempFolder } from "../../test/cli/scaffold/helpers.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "9" },
    busy: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(values.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 100) throw new Error("--rounds takes a whole number from 1 to 100");
/** How long the first build and start, then one edit's new answer, may take. */
export const START_TIMEOUT_MS = 90_000;
const ANSWER_TIMEOUT_MS = 30_000;
const POLL_MS = 25;
/** A pause between rounds, so that each save starts from a settled watcher. */
const SETTLE_MS = 1_500;

const TOOL_FILE = join("src", "tools", "ask-name.ts");
const DESCRIPTION = "Asks for your name, then greets you by it.";

/** A dev loop started for the bench: `list` answers the `ask_name` description listed now (undefined while reloading). */
export interface DevLoop {
  list(): Promise<string | undefined>;
  stop(): Promise<void>;
}

export async function measureReloads(transport: "http" | "stdio", label: string, start: (app: string) => Promise<DevLoop>): Promise<void> {
  const temp = tempFolder(`bench-dev-reload-${transport}`);
  const spinner = values.busy ? spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }) : undefined;
  try {
    const app = join(temp.dir, "app");
    const created = runCreate([app, "--yes", "--no-git", "--transport", transport], temp.dir);
    if (created.status !== 0) throw new Error(`create-mcp-handler failed: ${explain(created)}`);
    const toolPath = join(app, TOOL_FILE);
    const original = readFileSync(toolPath, "utf8");
    if (!original.includes(DESCRIPTION)) throw new Error(`${TOOL_FILE} no longer holds ${JSON.stringify(DESCRIPTION)}: update the bench`);
    const loop = await start(app);
    try {
      await untilListed(loop, DESCRIPTION);
      const samples: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        const edited = `${DESCRIPTION} (edit ${round})`;
        const saved = performance.now();
        writeFileSync(toolPath, original.replace(DESCRIPTION, edited));
        await untilListed(loop, edited);
        samples.push(Math.round(performance.now() - saved));
      }
      console.log(`node ${process.version}, ${values.busy ? "another core busy" : "quiet"} (load ${loadavg()[0]!.toFixed(1)})`);
      console.log(`${label}, save to the edited answer: ${summary(samples)}`);
    } finally {
      await loop.stop();
    }
  } finally {
    spinner?.kill();
    temp.remove();
  }
}

async function untilListed(loop: DevLoop, description: string): Promise<void> {
  const deadline = Date.now() + ANSWER_TIMEOUT_MS;
  while ((await loop.list()) !== description) {
    if (Date.now() > deadline) throw new Error(`no answer listing ${JSON.stringify(description)} within ${ANSWER_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return `min ${sorted[0]} ms, median ${median} ms, max ${sorted.at(-1)} ms (${sorted.length} saves)`;
}

/**
 * How long a stdio server takes to answer its first message, from the spawn, side by side in
 * one run (clients may give it as little as a second):
 * - `bare`: `node -e` a script that reads one line from stdin and writes one JSON-RPC answer
 *   line, the floor any Node stdio server pays;
 * - `initialize`: a freshly scaffolded stdio server (create-mcp-handler --transport stdio,
 *   built), run as its start script runs it (`node dist/src/main.js`, and whatever flags the
 *   script gives node), sent a 2025-11-25
 *   `initialize` line;
 * - `discover`: the same server sent a 2026-07-28 `server/discover` line (skipped, with a
 *   line saying so, if the scaffold does not answer it on stdio).
 * Each sample is a new process timed from spawn() to its answer line (on Linux also the CPU
 * time it spent by then, which another load on the machine disturbs less); then its stdin is
 * closed and it exits on its own (so whatever Node writes at exit, a compile cache say, is
 * written as it would be), killed only if it lingers. Rounds take the kinds in rotating
 * order after one warm-up of each (the OS file cache). Reports min and median per kind and
 * their ratios to bare; `--busy` keeps the other core busy with a spinning process.
 *
 *   node --import tsx bench/cold-start/run.ts [--rounds 21] [--busy] [--app <dir>]...
 *
 * The scaffold is made in a temp folder (outside this checkout, so nothing resolves from its
 * node_modules) and removed afterwards; `--app` times an existing built stdio project instead,
 * and given more than once, several side by side (a change's before and after).
 * The scaffold's runtime comes from the tarball `npm run build` packs: build after editing it.
 * `BENCH_PROF=<dir>` writes each scaffolded server's CPU profile into <dir>.
 * Local pipes only; every wait is bounded. Not part of the test suite.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { explain, runCreate, runIn, tempFolder } from "../../test/cli/scaffold/helpers.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "21" },
    busy: { type: "boolean", default: false },
    app: { type: "string", multiple: true },
  },
});
const ROUNDS = Number(values.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 500) throw new Error("--rounds takes a whole number from 1 to 500");
/** How long one process may take to answer, and then to exit once its stdin closed. */
const ANSWER_TIMEOUT_MS = 10_000;
const EXIT_TIMEOUT_MS = 5_000;

/** Reads one line, answers it with an empty result, and lets the process end. */
const BARE_SCRIPT = `let buffered = "";
process.stdin.setEncoding("utf8").on("data", (chunk) => {
  buffered += chunk;
  const end = buffered.indexOf("\\n");
  if (end < 0) return;
  const request = JSON.parse(buffered.slice(0, end));
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: {} }) + "\\n");
  process.stdin.pause();
});`;

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } },
};
const DISCOVER = {
  jsonrpc: "2.0",
  id: 1,
  method: "server/discover",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
};

interface Kind {
  readonly name: string;
  readonly args: readonly string[];
  readonly cwd: string | undefined;
  readonly request: object;
}

/** The stdio projects timed: `--app`'s, else one scaffold created and built; `remove` deletes what was created. */
function scaffolds(): { apps: string[]; remove: () => void } {
  if (values.app !== undefined) {
    for (const app of values.app) if (!existsSync(join(app, "dist", "src", "main.js"))) throw new Error(`${app} has no dist/src/main.js: build it first`);
    return { apps: values.app, remove: () => {} };
  }
  const temp = tempFolder("bench-cold-start");
  const app = join(temp.dir, "app");
  const created = runCreate([app, "--yes", "--no-git", "--transport", "stdio"], temp.dir);
  if (created.status !== 0) throw new Error(`create-mcp-handler failed: ${explain(created)}`);
  const built = runIn(app, "npm", ["run", "build"]);
  if (built.status !== 0) throw new Error(`npm run build failed: ${explain(built)}`);
  return { apps: [app], remove: temp.remove };
}

/** Waits for `child` to exit: its stdin closed, then SIGKILL if it lingers past the bound. */
async function reap(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  child.stdin?.end();
  const timer = setTimeout(() => child.kill("SIGKILL"), EXIT_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/**
 * The CPU time a process has used so far (user and system, all its threads), from Linux's
 * /proc; undefined elsewhere. Another load on the machine stretches the wall time of a start
 * far more than its CPU time, so this is the steadier number on a shared machine.
 */
function cpuSoFar(pid: number | undefined): number | undefined {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
/** Linux's USER_HZ, what /proc counts CPU time in. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Milliseconds from spawn() to the first stdout line, the CPU time spent by then, and that line. */
async function sample(kind: Kind): Promise<{ ms: number; cpuMs: number | undefined; line: string }> {
  const profile = process.env.BENCH_PROF !== undefined && kind.name !== "bare" ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
  const started = performance.now();
  const child = spawn(process.execPath, [...profile, ...kind.args], { cwd: kind.cwd, stdio: ["pipe", "pipe", "ignore"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdin.write(JSON.stringify(kind.request) + "\n");
  let output = "";
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${kind.name}: no answer line within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS);
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        output += chunk;
        const end = output.indexOf("\n");
        if (end < 0) return;
        const ms = performance.now() - started;
        clearTimeout(timer);
        resolve({ ms, cpuMs: cpuSoFar(child.pid), line: output.slice(0, end) });
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`${kind.name}: exited before answering (stdout: ${JSON.stringify(output)})`));
      });
    });
  } finally {
    child.stdout.resume();
    await reap(child, exited);
  }
}

/** Whether a first answer line is the result it should be (not an error, not noise). */
function answered(line: string): boolean {
  try {
    const message = JSON.parse(line) as { id?: unknown; result?: unknown };
    return message.id === 1 && typeof message.result === "object" && message.result !== null;
  } catch {
    return false;
  }
}

/** The `node ...` command that ends the project's start script (after its build), as words after `node`. */
function startCommand(app: string): string[] {
  const { scripts } = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as { scripts?: { start?: string } };
  const words = (scripts?.start ?? "").split("&&").at(-1)!.trim().split(/\s+/);
  if (words[0] !== "node") throw new Error(`the start script does not end with a node command: ${JSON.stringify(scripts?.start)}`);
  return words.slice(1);
}

const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return { min: sorted[0]!, median: sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2 };
};

async function main(): Promise<void> {
  const { apps, remove } = scaffolds();
  const loadAtStart = loadavg()[0]!; // what else this machine runs shows in every number
  let spinner: ChildProcess | undefined;
  try {
    // Several projects (a before and an after, say) are told apart by their folder's name.
    const label = (name: string, app: string) => (apps.length > 1 ? `${name} ${basename(app)}` : name);
    const candidates: Kind[] = [
      { name: "bare", args: ["-e", BARE_SCRIPT], cwd: undefined, request: INITIALIZE },
      ...apps.flatMap((app) => [
        { name: label("initialize", app), args: startCommand(app), cwd: app, request: INITIALIZE },
        { name: label("discover", app), args: startCommand(app), cwd: app, request: DISCOVER },
      ]),
    ];
    // The warm-up also checks each answer; a kind the scaffold does not answer is left out.
    const kinds: Kind[] = [];
    for (const kind of candidates) {
      const { line } = await sample(kind);
      if (answered(line)) kinds.push(kind);
      else console.log(`${kind.name}: left out, the first answer is not a result: ${line.slice(0, 200)}`);
    }
    if (!kinds.some((kind) => kind.name.startsWith("initialize"))) throw new Error("the scaffold did not answer initialize");
    if (values.busy) spinner = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
    const samples = new Map(kinds.map((kind) => [kind.name, [] as number[]]));
    const cpu = new Map(kinds.map((kind) => [kind.name, [] as number[]]));
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with another kind, so none always runs right after another.
      for (let turn = 0; turn < kinds.length; turn++) {
        const kind = kinds[(round + turn) % kinds.length]!;
        const { ms, cpuMs } = await sample(kind);
        samples.get(kind.name)!.push(ms);
        if (cpuMs !== undefined) cpu.get(kind.name)!.push(cpuMs);
      }
    }
    const bare = stats(samples.get("bare")!);
    console.log(`first answer on stdio, from spawn: ${ROUNDS} rounds, ${values.busy ? "the other core busy" : "quiet"}, load average ${loadAtStart.toFixed(1)} at start, node ${process.version}`);
    const width = Math.max(...kinds.map((kind) => kind.name.length));
    for (const [name, values] of samples) {
      const { min, median } = stats(values);
      const ratios = name === "bare" ? "" : `  min/bare ${(min / bare.min).toFixed(2)}x  median/bare ${(median / bare.median).toFixed(2)}x`;
      const cpuMs = cpu.get(name)!;
      const cpuMedian = cpuMs.length === values.length ? `  cpu median ${stats(cpuMs).median.toFixed(0).padStart(4)} ms` : "";
      console.log(`  ${name.padEnd(width)} min ${min.toFixed(1).padStart(6)} ms  median ${median.toFixed(1).padStart(6)} ms${ratios}${cpuMedian}`);
    }
  } finally {
    spinner?.kill();
    remove();
  }
}

await main();

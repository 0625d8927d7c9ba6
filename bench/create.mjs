#!/usr/bin/env node
// How long `create-mcp-handler --yes --no-install` takes, as users run it: the compiled
// bin, a fresh folder each run. Side by side with `node -e 0`, the floor any Node CLI pays,
// with `--no-git`, which shows what the default first commit (git init, add, commit) costs,
// and with bench/create-floor.mjs, which writes the same files (and makes the same commit)
// with nothing else: what creating those files costs this machine, whoever writes them.
// Builds a copy of the sources in a temp folder, so the checkout's dist/ is left alone.
// Usage: node bench/create.mjs [--runs N] [--busy]   (default 9; target: median under 300 ms)
// --busy keeps a busy loop running in another process for the whole run (the other core busy).
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const runsFlag = process.argv.indexOf("--runs");
const runs = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 9;
if (!Number.isInteger(runs) || runs < 1 || runs > 100) {
  console.error("error: --runs takes a whole number from 1 to 100");
  process.exit(2);
}

const busy = process.argv.includes("--busy");
const temp = mkdtempSync(join(tmpdir(), "bench-create-"));
let spinner;
try {
  const source = join(temp, "source");
  for (const entry of ["package.json", "tsconfig.json", "tsconfig.build.json", "cli", "generated", "templates", "schemas"]) {
    cpSync(join(root, entry), join(source, entry), { recursive: true });
  }
  symlinkSync(join(root, "node_modules"), join(source, "node_modules"));
  const build = spawnSync(join(root, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json"], { cwd: source, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
  // The rest of `npm run build`: the templates stored as rendering nodes (no handlebars at create time).
  const stored = spawnSync(process.execPath, [join("dist", "cli", "build-finish.js")], { cwd: source, encoding: "utf8" });
  if (stored.status !== 0) throw new Error(`storing templates failed:\n${stored.stdout}${stored.stderr}`);
  const bin = join(source, "dist", "cli", "create.js");

  const time = (args, cwd) => {
    const start = process.hrtime.bigint();
    const run = spawnSync(process.execPath, args, { cwd, encoding: "utf8" });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (run.status !== 0) throw new Error(`${args.join(" ")} failed:\n${run.stderr}`);
    return ms;
  };
  const samples = {
    "node -e 0": [],
    "create-mcp-handler --yes --no-install": [],
    "  the same with --no-git": [],
    "floor: the same files and commit": [],
    "floor: the same files": [],
  };
  time([bin, "warmup", "--yes", "--no-install", "--no-git"], temp); // fills the OS file cache; the floor's source
  const floor = join(root, "bench", "create-floor.mjs");
  const scaffold = join(temp, "warmup");
  if (busy) spinner = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
  for (let run = 0; run < runs; run++) {
    // Interleaved, so that machine noise hits both the same way.
    samples["node -e 0"].push(time(["-e", "0"], temp));
    samples["create-mcp-handler --yes --no-install"].push(time([bin, `app-${run}`, "--yes", "--no-install"], temp));
    samples["  the same with --no-git"].push(time([bin, `bare-${run}`, "--yes", "--no-install", "--no-git"], temp));
    samples["floor: the same files and commit"].push(time([floor, scaffold, join(temp, `floor-git-${run}`), "--git"], temp));
    samples["floor: the same files"].push(time([floor, scaffold, join(temp, `floor-${run}`)], temp));
  }
  const stats = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { min: sorted[0], median: sorted[Math.floor(sorted.length / 2)] };
  };
  const nodeFloor = stats(samples["node -e 0"]);
  console.log(`runs: ${runs}, ${busy ? "a busy loop on another core" : "quiet"}, node ${process.version}`);
  for (const [name, values] of Object.entries(samples)) {
    const { min, median } = stats(values);
    console.log(
      `${name.padEnd(40)} min ${min.toFixed(0).padStart(5)} ms  median ${median.toFixed(0).padStart(5)} ms  ` +
        `median/node ${(median / nodeFloor.median).toFixed(2)}x`,
    );
  }
  const median = stats(samples["create-mcp-handler --yes --no-install"]).median;
  const over = (name, floorName) => (stats(samples[name]).median / stats(samples[floorName]).median).toFixed(2);
  console.log(
    `create over its floor (medians): ${over("create-mcp-handler --yes --no-install", "floor: the same files and commit")}x with git, ` +
      `${over("  the same with --no-git", "floor: the same files")}x without`,
  );
  console.log(`target: median under 300 ms: ${median < 300 ? "met" : "NOT met"}`);
} finally {
  spinner?.kill();
  rmSync(temp, { recursive: true, force: true });
}

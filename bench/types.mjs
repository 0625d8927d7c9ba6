// Speed of `mcp-gen types`, side by side in one run (interleaved, so machine noise hits all):
//   baseline  the straightforward pipeline (bench/types-baseline.mjs)
//   cold      `mcp-gen types` into an empty folder (the built CLI, dist/cli/main.js)
//   check     `mcp-gen types --check` on unchanged output
//   node      `node -e 0`
// Prints min and median per variant and the ratios the targets are stated in
// (cold <= 0.6x baseline by median, check <= 2x node by median).
// Usage: node bench/types.mjs [runs=9]   (MCP_SCHEMAS_DIR overrides ../shared/schemas)
// It compiles its own copy of the CLI into .tmp/bench-build, so a concurrent `npm run build`
// cannot pull dist/ away mid-run.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const runs = Number(process.argv[2] ?? 9);
const schema = join(resolve(process.env.MCP_SCHEMAS_DIR ?? join(root, "..", "shared", "schemas")), "2026-07-28", "schema.json");
const work = mkdtempSync(join(tmpdir(), "mcp-gen-bench-"));
const build = join(root, ".tmp", "bench-build");
rmSync(build, { recursive: true, force: true });
spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json", "--outDir", build], { cwd: root, stdio: "ignore" });
const cli = join(build, "cli", "main.js");

function run(args) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return ms;
}

// The check variant needs a fresh output to compare with; make it once.
const checked = join(work, "checked");
run([cli, "types", "--schema", schema, "--out", checked]);

const variants = {
  baseline: (i) => run([join(root, "bench", "types-baseline.mjs"), build, schema, join(work, `baseline-${i}`)]),
  cold: (i) => run([cli, "types", "--schema", schema, "--out", join(work, `cold-${i}`)]),
  check: () => run([cli, "types", "--schema", schema, "--out", checked, "--check"]),
  node: () => run(["-e", "0"]),
};
const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let i = 0; i < runs; i++) for (const [name, variant] of Object.entries(variants)) times[name].push(variant(i));
rmSync(work, { recursive: true, force: true });

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const stats = Object.fromEntries(Object.entries(times).map(([name, xs]) => [name, { min: Math.min(...xs), median: median(xs) }]));
console.log(`runs: ${runs} each, interleaved`);
for (const [name, s] of Object.entries(stats)) console.log(`${name.padEnd(9)} min ${s.min.toFixed(0).padStart(5)} ms   median ${s.median.toFixed(0).padStart(5)} ms`);
const ratio = (a, b, key) => (stats[a][key] / stats[b][key]).toFixed(2);
console.log(`cold / baseline: median ${ratio("cold", "baseline", "median")}x, min ${ratio("cold", "baseline", "min")}x (target <= 0.6x)`);
console.log(`check / node -e 0: median ${ratio("check", "node", "median")}x, min ${ratio("check", "node", "min")}x (target <= 2x)`);

// Speed of `mcp-gen types`, side by side in one run (interleaved, so machine noise hits all):
//   baseline    the straightforward pipeline (bench/types-baseline.mjs): json-schema-to-typescript,
//               prettier (typescript parser) and ts-morph one after the other in one process
//   cold        `mcp-gen types` (the built CLI) into an empty folder
//   check       `mcp-gen types --check` on unchanged output
//   quick       the same check through quickTypes (cli/commands/types.ts) alone, without main.ts
//   node        `node -e 0`
// baseline and cold run twice: "types" with an empty templates/runtime (types.ts, methods.ts,
// capabilities.ts: the pipeline the target was set for) and "full" with the runtime emitted too.
// Prints min and median per variant and the ratios the targets are stated in
// (cold <= 0.6x baseline, check <= 2x node, by median).
// Usage: node bench/types.mjs [runs=9]   (MCP_SCHEMAS_DIR overrides ../shared/schemas)
// It compiles its own copies of the CLI under .tmp/bench-build, each with its own package root
// (package.json, lock, templates), so that a concurrent `npm run build` or a template edited
// during the run cannot disturb it. Libraries still resolve from the checkout's node_modules.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const runs = Number(process.argv[2] ?? 9);
const schema = join(resolve(process.env.MCP_SCHEMAS_DIR ?? join(root, "..", "shared", "schemas")), "2026-07-28", "schema.json");
const work = mkdtempSync(join(tmpdir(), "mcp-gen-bench-"));

function buildCopy(name, withRuntime) {
  const dir = join(root, ".tmp", "bench-build", name);
  rmSync(dir, { recursive: true, force: true });
  spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json", "--outDir", dir], {
    cwd: root,
    stdio: "ignore",
  });
  for (const entry of ["package.json", "schemas", "cli/generate"]) cpSync(join(root, entry), join(dir, entry), { recursive: true });
  if (withRuntime) cpSync(join(root, "templates", "runtime"), join(dir, "templates", "runtime"), { recursive: true });
  else mkdirSync(join(dir, "templates", "runtime"), { recursive: true });
  return dir;
}
const builds = { types: buildCopy("types", false), full: buildCopy("full", true) };
const cliOf = (build) => join(build, "cli", "main.js");

function run(args) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return ms;
}

// The check variants compare against an output made once, up front.
const checked = join(work, "checked");
run([cliOf(builds.full), "types", "--schema", schema, "--out", checked]);

const variants = {};
for (const [name, build] of Object.entries(builds)) {
  variants[`baseline ${name}`] = (i) => run([join(root, "bench", "types-baseline.mjs"), build, schema, join(work, `baseline-${name}-${i}`)]);
  variants[`cold ${name}`] = (i) => run([cliOf(build), "types", "--schema", schema, "--out", join(work, `cold-${name}-${i}`)]);
}
variants.check = () => run([cliOf(builds.full), "types", "--schema", schema, "--out", checked, "--check"]);
variants.quick = () =>
  run([
    "--input-type=module",
    "-e",
    `const { quickTypes } = await import(${JSON.stringify(pathToFileURL(join(builds.full, "cli", "commands", "types.js")).href)});
     process.exitCode = await quickTypes(["types", "--check", "--schema", ${JSON.stringify(schema)}, "--out", ${JSON.stringify(checked)}]);`,
  ]);
variants.node = () => run(["-e", "0"]);

const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let i = 0; i < runs; i++) for (const [name, variant] of Object.entries(variants)) times[name].push(variant(i));
rmSync(work, { recursive: true, force: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const stats = Object.fromEntries(Object.entries(times).map(([name, xs]) => [name, { min: Math.min(...xs), median: median(xs) }]));
console.log(`runs: ${runs} each, interleaved`);
for (const [name, s] of Object.entries(stats))
  console.log(`${name.padEnd(14)} min ${s.min.toFixed(0).padStart(5)} ms   median ${s.median.toFixed(0).padStart(5)} ms`);
const ratio = (a, b) => `median ${(stats[a].median / stats[b].median).toFixed(2)}x, min ${(stats[a].min / stats[b].min).toFixed(2)}x`;
console.log(`cold types / baseline types: ${ratio("cold types", "baseline types")} (target <= 0.6x)`);
console.log(`cold full / baseline full:   ${ratio("cold full", "baseline full")}`);
console.log(`check / node -e 0:           ${ratio("check", "node")} (target <= 2x)`);
console.log(`quick / node -e 0:           ${ratio("quick", "node")} (the check without yargs)`);

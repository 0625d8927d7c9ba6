// Speed of `mcp-gen types`, side by side in one run (interleaved, so machine noise hits all):
//   baseline types  the straightforward pipeline (bench/types-baseline.mjs): json-schema-to-typescript,
//                   ts-morph and prettier (typescript parser), eagerly, one after the other, emitting
//                   types.ts, methods.ts and capabilities.ts only: the reference the targets name
//   cold full       `mcp-gen types` (the built CLI) into an empty folder, runtime included
//   cold types      the same with an empty packages/runtime/src (types and maps only)
//   check           `mcp-gen types --check` on unchanged output
//   hash floor      bench/hash-floor.mjs: Node started, the files the check reads (the schema, the lock,
//                   package.json, the runtime source, the checked output) read and hashed, nothing else
//   node            `node -e 0`
// Prints min and median per variant and the two target ratios, by median and by min:
//   cold full <= 0.5x baseline types, check <= 1.2x hash floor.
// Usage: node bench/types.mjs [runs=9] [--busy] [--clean-env]   (MCP_SCHEMAS_DIR overrides ../shared/schemas)
// --busy keeps a busy loop running in another process for the whole run (the other core busy).
// --clean-env runs every process without NODE_EXTRA_CA_CERTS and NODE_OPTIONS. Node 20 reads the
// extra certificates at startup (tens of ms for a system bundle), which slows `node -e 0` as
// much as it slows mcp-gen and so flatters the check ratio; the report says which was measured.
// It compiles its own copies of the CLI under .tmp/bench-build, each with its own package root
// (package.json, lock, templates), so that a concurrent `npm run build` or a template edited
// during the run cannot disturb it. Libraries still resolve from the checkout's node_modules.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const busy = args.includes("--busy");
const cleanEnv = args.includes("--clean-env");
const childEnv = { ...process.env };
if (cleanEnv) for (const name of ["NODE_EXTRA_CA_CERTS", "NODE_OPTIONS"]) delete childEnv[name];
const runs = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 9);
const schema = join(resolve(process.env.MCP_SCHEMAS_DIR ?? join(root, "..", "shared", "schemas")), "2026-07-28", "schema.json");
const work = mkdtempSync(join(tmpdir(), "mcp-gen-bench-"));

function buildCopy(name, withRuntime) {
  const dir = join(root, ".tmp", "bench-build", name);
  rmSync(dir, { recursive: true, force: true });
  // Laid out as the package is: the compiled CLI under dist/, generated/ holding the shipped sources only.
  const tsc = spawnSync(
    process.execPath,
    [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json", "--outDir", join(dir, "dist")],
    {
      cwd: root,
    },
  );
  if (tsc.status !== 0) throw new Error(`tsc failed: ${tsc.stdout}${tsc.stderr}`);
  // generated/: the initialize-era folders a runtime outside a project is written beside (siblings.ts).
  for (const entry of ["package.json", "schemas", "generated"]) cpSync(join(root, entry), join(dir, entry), { recursive: true });
  if (withRuntime) cpSync(join(root, "packages", "runtime", "src"), join(dir, "packages", "runtime", "src"), { recursive: true });
  else mkdirSync(join(dir, "packages", "runtime", "src"), { recursive: true });
  return dir;
}
const builds = { types: buildCopy("types", false), full: buildCopy("full", true) };
const cliOf = (build) => join(build, "dist", "cli", "main.js");

function run(args) {
  const started = process.hrtime.bigint();
  // Outside any project (this repository is one), as a user runs `mcp-gen types --schema`.
  const result = spawnSync(process.execPath, args, { cwd: work, encoding: "utf8", env: childEnv });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return ms;
}

// The check compares against an output made once, up front.
const checked = join(work, "checked");
run([cliOf(builds.full), "types", "--schema", schema, "--out", checked]);

const variants = {
  "baseline types": (i) => run([join(root, "bench", "types-baseline.mjs"), builds.types, schema, join(work, `baseline-${i}`)]),
  "cold full": (i) => run([cliOf(builds.full), "types", "--schema", schema, "--out", join(work, `full-${i}`)]),
  "cold types": (i) => run([cliOf(builds.types), "types", "--schema", schema, "--out", join(work, `types-${i}`)]),
  check: () => run([cliOf(builds.full), "types", "--schema", schema, "--out", checked, "--check"]),
  "hash floor": () =>
    run([
      join(root, "bench", "hash-floor.mjs"),
      schema,
      join(builds.full, "schemas", "lock.json"),
      join(builds.full, "package.json"),
      join(builds.full, "packages", "runtime", "src"),
      checked,
    ]),
  node: () => run(["-e", "0"]),
};

const spinner = busy ? spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }) : undefined;
const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
try {
  for (let i = 0; i < runs; i++) for (const [name, variant] of Object.entries(variants)) times[name].push(variant(i));
} finally {
  spinner?.kill();
  rmSync(work, { recursive: true, force: true });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const stats = Object.fromEntries(Object.entries(times).map(([name, xs]) => [name, { min: Math.min(...xs), median: median(xs) }]));
const extraCerts = childEnv.NODE_EXTRA_CA_CERTS ? "NODE_EXTRA_CA_CERTS set" : "no NODE_EXTRA_CA_CERTS";
console.log(`runs: ${runs} each, interleaved, ${busy ? "a busy loop on another core" : "quiet"}, node ${process.version}, ${extraCerts}`);
for (const [name, s] of Object.entries(stats))
  console.log(`${name.padEnd(15)} min ${s.min.toFixed(0).padStart(5)} ms   median ${s.median.toFixed(0).padStart(5)} ms`);
const ratio = (a, b) => `median ${(stats[a].median / stats[b].median).toFixed(2)}x, min ${(stats[a].min / stats[b].min).toFixed(2)}x`;
console.log(`cold full / baseline types:  ${ratio("cold full", "baseline types")} (target <= 0.5x)`);
console.log(`cold types / baseline types: ${ratio("cold types", "baseline types")}`);
console.log(`check / hash floor:          ${ratio("check", "hash floor")} (target <= 1.2x)`);
console.log(`check / node -e 0:           ${ratio("check", "node")}`);

#!/usr/bin/env node
// Runs the test files under test/ with Node's own test runner, TypeScript loaded by tsx.
// Node 20's --test takes no globs, so the file list is built here.
// Usage: node test/run.mjs [--tier unit|e2e] [path-filter ...]   (a filter keeps files whose path contains it)
// Two tiers: the end-to-end tier is everything under test/e2e/ (scaffolded projects installed and
// built, real peer processes); the unit tier is everything else. No --tier runs both. Either
// runs after building the runtime package.
// TEST_CONCURRENCY sets how many files run at once (2); TEST_DURATIONS=1 adds each file's time.
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const TIERS = ["unit", "e2e"];

function parseArgs(args) {
  let tier;
  const filters = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--tier") tier = args[++i] ?? "";
    else if (arg.startsWith("--tier=")) tier = arg.slice("--tier=".length);
    else filters.push(arg);
  }
  if (tier !== undefined && !TIERS.includes(tier)) {
    console.error(`--tier takes ${TIERS.join(" or ")}, not "${tier}"`);
    process.exit(2);
  }
  return { tier, filters };
}

function* testFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "fixtures" || entry.name === "golden") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* testFiles(path);
    else if (entry.name.endsWith(".test.ts")) yield relative(root, path);
  }
}

const { tier, filters } = parseArgs(process.argv.slice(2));
const e2eFolder = join("test", "e2e") + sep;
const inTier = (file) => tier === undefined || (tier === "e2e") === file.startsWith(e2eFolder);
const files = [...testFiles(join(root, "test"))]
  .filter(inTier)
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error(`no ${tier ? `${tier}-tier ` : ""}test files matched ${filters.join(" ") || "test/**/*.test.ts"}`);
  process.exit(1);
}
// The schemas every suite needs, checked once (test/support/preflight.ts): one line instead of one failure per file.
const preflight = spawnSync(process.execPath, ["--import", "tsx", join(root, "test", "support", "preflight.ts")], {
  cwd: root,
  stdio: "inherit",
  timeout: 120_000,
});
if (preflight.status !== 0) process.exit(preflight.status ?? 1);
// A new project depends on the runtime package as a user gets it, built: the end-to-end tier
// installs it, and the unit tier's scaffold plans pack it into vendor/. It is built from its
// source here and now, so no run tests an earlier build.
const build = spawnSync(process.execPath, [join(root, "packages", "runtime", "build.mjs")], { cwd: root, stdio: "inherit", timeout: 300_000 });
if (build.status !== 0) {
  console.error("the runtime package did not build (node packages/runtime/build.mjs)");
  process.exit(build.status ?? 1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? "2";
// Naming a second reporter means naming the first: the one Node picks by default (spec on a terminal, else tap).
const defaultReporter = process.stdout.isTTY ? "spec" : "tap";
const reporters = process.env.TEST_DURATIONS
  ? [`--test-reporter=${defaultReporter}`, "--test-reporter-destination=stdout", `--test-reporter=${join(root, "test", "support", "durations-reporter.mjs")}`, "--test-reporter-destination=stdout"]
  : [];
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, ...reporters, ...files], { cwd: root, stdio: "inherit" });
process.exit(result.status ?? 1);

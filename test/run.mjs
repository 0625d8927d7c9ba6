#!/usr/bin/env node
// Runs every test file under test/ with Node's own test runner, TypeScript loaded by tsx.
// Node 20's --test takes no globs, so the file list is built here.
// Usage: node test/run.mjs [path-filter ...]   (a filter keeps files whose path contains it)
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const filters = process.argv.slice(2);

function* testFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "fixtures" || entry.name === "golden") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* testFiles(path);
    else if (entry.name.endsWith(".test.ts")) yield relative(root, path);
  }
}

const files = [...testFiles(join(root, "test"))].filter((file) => filters.length === 0 || filters.some((f) => file.includes(f))).sort();
if (files.length === 0) {
  console.error(`no test files matched ${filters.join(" ") || "test/**/*.test.ts"}`);
  process.exit(1);
}
// The schemas every suite needs, checked once (test/support/preflight.ts): one line instead of one failure per file.
const preflight = spawnSync(process.execPath, ["--import", "tsx", join(root, "test", "support", "preflight.ts")], {
  cwd: root,
  stdio: "inherit",
  timeout: 120_000,
});
if (preflight.status !== 0) process.exit(preflight.status ?? 1);
const concurrency = process.env.TEST_CONCURRENCY ?? "2";
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, ...files], { cwd: root, stdio: "inherit" });
process.exit(result.status ?? 1);

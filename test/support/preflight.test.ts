import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./schemas.js";

// A checkout with no schemas beside it, none in $MCP_SCHEMAS_DIR and none cached: `npm test`'s
// runner stops before any test file with the one line that says how to provide them.
test("without any source of the pinned schemas the runner stops at once with one line, running no test", { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-gen-preflight-"));
  try {
    const copy = join(dir, "repo"); // dir/shared does not exist, so ../shared/schemas is missing
    for (const path of ["cli", "schemas", "test/run.mjs", "test/support", "test/e2e/cli/main.test.ts", "package.json", "tsconfig.json"]) {
      cpSync(join(repoRoot, path), join(copy, path), { recursive: true });
    }
    symlinkSync(join(repoRoot, "node_modules"), join(copy, "node_modules"));
    // Every pinned URL points at a closed loopback port, as a machine without the network would see it.
    const lockPath = join(copy, "schemas", "lock.json");
    const lock = JSON.parse(readFileSync(lockPath, "utf8")) as { revisions: Record<string, { url: string }> };
    for (const pin of Object.values(lock.revisions)) pin.url = "http://127.0.0.1:9/schema.json";
    writeFileSync(lockPath, JSON.stringify(lock));
    const { MCP_SCHEMAS_DIR: _unset, ...env } = process.env;
    const run = spawnSync(process.execPath, ["test/run.mjs", "test/e2e/cli/main"], { cwd: copy, env, encoding: "utf8", timeout: 90_000 });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /^error: upstream schema [\w-]+\/schema\.json not found \(.*\); provide it one of three ways: set MCP_SCHEMAS_DIR/);
    assert.equal(run.stderr.trimEnd().split("\n").length, 1, run.stderr);
    assert.doesNotMatch(run.stdout, /TAP version|# Subtest/, "no test ran");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

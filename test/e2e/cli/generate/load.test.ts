/**
 * What `mcp-gen types --check` loads, seen from outside: the CLI run as its own process
 * reports the built-in modules it loaded (the loader itself is tested in process by
 * test/cli/generate/load.test.ts).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot, schemaPath } from "../../../support/schemas.js";

test("a --check of a schema file loads no network module: download.ts (http, https, tls) only for a URL", { timeout: 60_000 }, () => {
  const temp = mkdtempSync(join(tmpdir(), "check-light-"));
  try {
    const schema = schemaPath("2026-07-28");
    const cli = join(repoRoot, "cli", "main.ts");
    const tsx = import.meta.resolve("tsx");
    const made = spawnSync(process.execPath, ["--import", tsx, cli, "types", "--schema", schema, "--out", join(temp, "out")], { cwd: temp, encoding: "utf8" });
    assert.equal(made.status, 0, made.stderr);
    // Node's own list of the built-in modules a process loaded, written at exit.
    const report = `data:text/javascript,process.on("exit", () => process.stderr.write("\\nLOADED " + JSON.stringify(process.moduleLoadList)))`;
    const check = spawnSync(process.execPath, ["--import", tsx, "--import", report, cli, "types", "--schema", schema, "--out", join(temp, "out"), "--check"], {
      cwd: temp,
      encoding: "utf8",
    });
    assert.equal(check.status, 0, check.stderr);
    const loaded = JSON.parse(check.stderr.split("\nLOADED ").at(-1)!) as string[];
    assert.ok(loaded.length > 20, "the report lists what was loaded");
    assert.deepEqual(
      loaded.filter((name) => /\b(https|tls|_tls_wrap|_http_client)\b/.test(name)),
      [],
    );
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
});

/**
 * The official conformance suite against a server built on the generated runtime, over
 * Streamable HTTP on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { serveHttp, type HttpServerHandle } from "../../templates/runtime/transports/http-server.js";
import { repoRoot } from "../support/schemas.js";
import { createConformanceServer } from "./support/conformance-server.js";
import { RUN_TIMEOUT_MS, runConformance } from "./support/run-conformance.js";

describe("official conformance suite over Streamable HTTP", () => {
  let handle: HttpServerHandle;
  let outputDir: string;

  before(async () => {
    outputDir = mkdtempSync(join(tmpdir(), "mcp-gen-conformance-"));
    handle = await serveHttp(createConformanceServer().server, { host: "127.0.0.1", port: 0 });
  });

  after(async () => {
    await handle?.close();
    rmSync(outputDir, { recursive: true, force: true });
  });

  it("server-stateless at 2026-07-28: every check passes", { timeout: RUN_TIMEOUT_MS + 10_000 }, async () => {
    const run = await runConformance(["server", "--url", handle.url, "--scenario", "server-stateless", "--spec-version", "2026-07-28"], outputDir);
    assert.ok(run.checks.length >= 25, `expected the scenario's checks, got ${run.checks.length}:\n${run.output.slice(-2000)}`);
    const notPassing = run.checks.filter((check) => check.status !== "SUCCESS").map((check) => `${check.id}: ${check.status} ${check.errorMessage ?? ""}`);
    assert.deepEqual(notPassing, [], run.output.slice(-3000));
    assert.equal(run.code, 0, run.output.slice(-2000));
  });

  it("--requirements 2026-07-28: every required scenario passes, but the baselined ones", { timeout: RUN_TIMEOUT_MS + 10_000 }, async () => {
    // expected-failures.yml names each known gap and why; a baselined scenario that starts
    // passing makes the run fail too (stale baseline), so the list cannot rot.
    const baseline = join(repoRoot, "test/conformance/expected-failures.yml");
    const run = await runConformance(["server", "--url", handle.url, "--requirements", "2026-07-28", "--expected-failures", baseline], outputDir);
    assert.ok(run.checks.length >= 100, `expected the requirement set's checks, got ${run.checks.length}:\n${run.output.slice(-2000)}`);
    const progress = run.checks.find((check) => check.id === "tools-call-with-progress");
    assert.equal(progress?.status, "SUCCESS", `tools-call-with-progress: ${progress?.errorMessage ?? "not run"}`);
    assert.equal(run.code, 0, run.output.slice(-4000));
  });
});

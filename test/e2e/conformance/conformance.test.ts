/**
 * The official conformance suite against a server built on the generated runtime, over
 * Streamable HTTP on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { repoRoot } from "../../support/schemas.js";
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

  it(
    "--requirements 2026-07-28: every check the suite reports passes, scored or not, the tasks extension's included",
    { timeout: RUN_TIMEOUT_MS + 10_000 },
    async (t) => {
      const baseline = join(repoRoot, "test/e2e/conformance/expected-failures.yml");
      const run = await runConformance(["server", "--url", handle.url, "--requirements", "2026-07-28", "--expected-failures", baseline], outputDir);
      assert.ok(run.checks.length >= 190, `expected the requirement set's checks, got ${run.checks.length}:\n${run.output.slice(-2000)}`);
      const notPassing = run.checks
        .filter((check) => !PASSING.has(check.status) && !isPendingInSuite(check))
        .map((check) => `${check.scenario}/${check.id}: ${check.status} ${check.errorMessage ?? ""}`);
      const tasks = run.checks.filter((check) => check.scenario.startsWith("tasks-"));
      t.diagnostic(
        `${run.checks.length - notPassing.length} of ${run.checks.length} checks pass or are the suite's own skip; tasks scenarios: ${tasks.filter((c) => c.status === "SUCCESS").length} of ${tasks.length} pass`,
      );
      assert.deepEqual(notPassing, [], run.output.slice(-3000));
      for (const scenario of [
        "json-schema-2020-12",
        "http-custom-header-server-validation",
        "tools-call-with-progress",
        "tasks-lifecycle",
        "tasks-mrtr-input",
      ]) {
        assert.ok(
          run.checks.some((check) => check.scenario === scenario),
          `${scenario} did not run`,
        );
      }
      assert.equal(run.code, 0, run.output.slice(-4000));
    },
  );
});

/**
 * The suite's own placeholder: `tasks-status-notifications` reports one SKIPPED check whatever
 * the server does (its harness is pending a rewrite for listen streams), so it cannot pass;
 * notifications/tasks on listen streams is tested in test/runtime/tasks/ instead.
 */
function isPendingInSuite(check: { scenario: string; status: string }): boolean {
  return check.scenario === "tasks-status-notifications" && check.status === "SKIPPED";
}

/** INFO checks report facts (e.g. which SSE features were seen) without a verdict. */
const PASSING = new Set(["SUCCESS", "INFO"]);

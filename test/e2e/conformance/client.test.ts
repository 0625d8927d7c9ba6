/**
 * The official conformance suite's client scenarios (`conformance client --requirements`)
 * against a client `mcp-gen client` generated, at 2026-07-28 and at 2025-11-25: the suite
 * runs support/client-driver.ts once per scenario, against its own scenario servers on
 * loopback. Every check of every scenario must pass, except the ones
 * expected-failures.yml lists with their reason (which must fail) and the two named below.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { explain, runMcpGen } from "../../cli/scaffold/helpers.js";
import { repoRoot } from "../../support/schemas.js";
import { RUN_TIMEOUT_MS, runConformance, type Check } from "./support/run-conformance.js";

const DRIVER = join(repoRoot, "test/e2e/conformance/support/client-driver.ts");
const BASELINE = join(repoRoot, "test/e2e/conformance/expected-failures.yml");
const TSX = import.meta.resolve("tsx");

/** The scenarios expected-failures.yml lists for the client, each with its reason there. */
const EXPECTED_FAILURES = new Set(
  readFileSync(BASELINE, "utf8")
    .split(/^client:$/m)[1]!
    .split("\n")
    .map((line) => /^\s+- (\S+)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined),
);

/**
 * At 2026-07-28 the client opens with server/discover, as that revision's clients do, so
 * it never sends `initialize` or `notifications/initialized`: http-standard-headers reports
 * their Mcp-Method checks as SKIPPED (not exercised), which is right for this era.
 */
function isNotThisEra(check: Check, revision: string): boolean {
  return (
    revision === "2026-07-28" &&
    check.scenario === "http-standard-headers" &&
    check.status === "SKIPPED" &&
    /^Client did not send a (initialize|notifications\/initialized) request;/.test(check.errorMessage ?? "")
  );
}

describe("official conformance suite, client scenarios, against a generated client", () => {
  let work: string;
  let clientFile: string;

  before(() => {
    // Outside any project: a client for the revision in this repository's generated/, no tools bound.
    work = mkdtempSync(join(tmpdir(), "mcp-gen-conformance-client-"));
    clientFile = join(work, "client.ts");
    const run = runMcpGen(["client", "--out", clientFile, "--generated", join(repoRoot, "generated")], work);
    assert.equal(run.status, 0, explain(run));
  });

  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  for (const revision of ["2026-07-28", "2025-11-25"]) {
    it(`--requirements ${revision}: every check passes but the listed authorization scenarios`, { timeout: RUN_TIMEOUT_MS + 10_000 }, async (t) => {
      process.env["MCP_GEN_CLIENT"] = clientFile;
      const command = `${process.execPath} --import ${TSX} ${DRIVER}`;
      const run = await runConformance(["client", "--command", command, "--requirements", revision, "--expected-failures", BASELINE], work);
      const scenarios = new Set(run.checks.map((check) => check.scenario));
      const spoken = [...scenarios].filter((scenario) => !EXPECTED_FAILURES.has(scenario));
      t.diagnostic(`${spoken.length} scenarios spoken (${spoken.join(", ")}); ${scenarios.size - spoken.length} authorization scenarios expected to fail`);
      assert.ok(
        spoken.length >= (revision === "2026-07-28" ? 8 : 5),
        `expected the requirement set's scenarios, got ${[...scenarios].join(", ")}:\n${run.output.slice(-2000)}`,
      );
      const notPassing = run.checks
        .filter((check) => !EXPECTED_FAILURES.has(check.scenario) && !PASSING.has(check.status) && !isNotThisEra(check, revision))
        .map((check) => `${check.scenario}/${check.id}: ${check.status} ${check.errorMessage ?? ""}`);
      assert.deepEqual(notPassing, [], run.output.slice(-3000));
      for (const scenario of scenarios) {
        if (!EXPECTED_FAILURES.has(scenario)) continue;
        assert.ok(
          run.checks.some((check) => check.scenario === scenario && check.status === "FAILURE"),
          `${scenario} is listed as failing but did not fail: remove it from expected-failures.yml`,
        );
      }
      assert.equal(run.code, 0, run.output.slice(-3000));
    });
  }
});

/** INFO checks report facts without a verdict. */
const PASSING = new Set(["SUCCESS", "INFO"]);

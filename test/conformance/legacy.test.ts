/**
 * The official conformance suite at 2025-11-25 (clients that open with `initialize`)
 * against one dual-era server process over Streamable HTTP. Every check is asserted: each
 * one passes, except the named gaps below, which must still fail (a gap that starts
 * passing fails the test, so the list cannot rot).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { serveHttp, type HttpServerHandle } from "../../templates/runtime/transports/http-server.js";
import { createConformanceServer } from "./support/conformance-server.js";
import { addResourceSubscriptions } from "./support/legacy-resources.js";
import { RUN_TIMEOUT_MS, runConformance } from "./support/run-conformance.js";

/** Known gaps at 2025-11-25, each with its reason. */
const GAPS: Readonly<Record<string, string>> = {
  "tools-call-sampling": "server-to-client requests (sampling/createMessage) are not yet sent to legacy sessions",
  "tools-call-elicitation": "server-to-client requests (elicitation/create) are not yet sent to legacy sessions",
  "elicitation-sep1034-general": "server-to-client requests (elicitation/create) are not yet sent to legacy sessions",
  "elicitation-sep1330-general": "server-to-client requests (elicitation/create) are not yet sent to legacy sessions",
  "tools-call-with-logging": "the conformance catalog has no test_tool_with_logging (the 2025-11-25 name of its logging tool)",
};
/** Statuses that report rather than judge. */
const INFORMATIONAL = new Set(["SUCCESS", "INFO", "SKIPPED"]);

describe("official conformance suite at 2025-11-25 against a dual-era server", () => {
  let handle: HttpServerHandle;
  let outputDir: string;

  before(async () => {
    outputDir = mkdtempSync(join(tmpdir(), "mcp-gen-conformance-legacy-"));
    handle = await serveHttp(addResourceSubscriptions(createConformanceServer().server), { host: "127.0.0.1", port: 0 });
  });

  after(async () => {
    await handle?.close();
    rmSync(outputDir, { recursive: true, force: true });
  });

  it("--requirements 2025-11-25: every check passes but the named gaps, which still fail", { timeout: RUN_TIMEOUT_MS + 10_000 }, async () => {
    const run = await runConformance(["server", "--url", handle.url, "--requirements", "2025-11-25"], outputDir);
    assert.ok(run.checks.length >= 70, `expected the requirement set's checks, got ${run.checks.length}:\n${run.output.slice(-2000)}`);
    const unexpected = run.checks
      .filter((check) => !INFORMATIONAL.has(check.status) && !(check.id in GAPS))
      .map((check) => `${check.id}: ${check.status} ${check.errorMessage ?? ""}`);
    assert.deepEqual(unexpected, [], run.output.slice(-3000));
    const stale = Object.keys(GAPS).filter((id) => run.checks.some((check) => check.id === id && check.status === "SUCCESS"));
    assert.deepEqual(stale, [], "these gaps pass now: remove them from GAPS");
    // The legacy session machinery, by name: initialize, the session lifecycle, subscriptions.
    const lifecycle = [
      "server-initialize",
      "server-session-initialized-accepted",
      "server-session-delete-accepted",
      "server-session-terminated-returns-404",
      "ping",
      "logging-set-level",
      "resources-subscribe",
      "resources-unsubscribe",
      "localhost-host-rebinding-rejected",
      // SSE polling: a priming event with an id and retry, the stream closed mid-call, the answer on the resumed stream.
      "server-sse-priming-event",
      "server-sse-retry-field",
      "server-sse-disconnect-resume",
    ];
    for (const id of lifecycle) {
      const check = run.checks.find((candidate) => candidate.id === id);
      assert.equal(check?.status, "SUCCESS", `${id}: ${check?.errorMessage ?? "not run"}`);
    }
  });
});

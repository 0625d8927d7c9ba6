/**
 * The official conformance suite at 2025-11-25 (clients that open with `initialize`)
 * against one dual-era server process over Streamable HTTP. Every check is asserted: each
 * one passes or only reports (INFO, SKIPPED); a failure or a warning fails the test, and
 * the checks of the legacy machinery are named below so that none can go missing unseen.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { createConformanceServer } from "./support/conformance-server.js";
import { addResourceSubscriptions } from "./support/legacy-resources.js";
import { RUN_TIMEOUT_MS, runConformance } from "./support/run-conformance.js";

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

  it("--requirements 2025-11-25: every check passes or only reports (INFO, SKIPPED)", { timeout: RUN_TIMEOUT_MS + 10_000 }, async (t) => {
    const run = await runConformance(["server", "--url", handle.url, "--requirements", "2025-11-25"], outputDir);
    assert.ok(run.checks.length >= 70, `expected the requirement set's checks, got ${run.checks.length}:\n${run.output.slice(-2000)}`);
    const passed = run.checks.filter((check) => check.status === "SUCCESS").length;
    t.diagnostic(
      `${passed} of ${run.checks.length} checks pass (${run.checks.filter((check) => !INFORMATIONAL.has(check.status)).length} neither pass nor report)`,
    );
    const unexpected = run.checks
      .filter((check) => !INFORMATIONAL.has(check.status))
      .map((check) => `${check.id}: ${check.status} ${check.errorMessage ?? ""}`);
    assert.deepEqual(unexpected, [], run.output.slice(-3000));
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
      // Server-to-client requests, served from tools written with input.ask (the SEP scenarios
      // report "-general" only when they fail, one check per field when they pass); logging.
      "tools-call-sampling",
      "tools-call-elicitation",
      ...["string", "integer", "number", "enum", "boolean"].map((kind) => `elicitation-sep1034-${kind}-default`),
      ...["untitled-single", "titled-single", "legacy-enumnames", "untitled-multi", "titled-multi"].map((kind) => `elicitation-sep1330-${kind}`),
      "tools-call-with-logging",
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

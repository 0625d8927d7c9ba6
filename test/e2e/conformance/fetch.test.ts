/**
 * The official conformance suite's server-stateless scenario through the fetch handler
 * (`toFetchHandler`) on Node: the same conformance server, its endpoint served by
 * @hono/node-server, which turns each node request into a web Request and streams the
 * Response back.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import type { Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { serve } from "@hono/node-server";
import { toFetchHandler } from "../../../packages/runtime/src/transports/http-fetch.js";
import { createConformanceServer } from "./support/conformance-server.js";
import { RUN_TIMEOUT_MS, runConformance } from "./support/run-conformance.js";

describe("official conformance suite through the fetch handler", () => {
  let http: NodeServer;
  let url: string;
  let outputDir: string;

  before(async () => {
    outputDir = mkdtempSync(join(tmpdir(), "mcp-gen-conformance-fetch-"));
    http = serve({ fetch: toFetchHandler(createConformanceServer().server, { path: "/mcp" }), hostname: "127.0.0.1", port: 0 }) as NodeServer;
    if (!http.listening) await new Promise<void>((ready) => http.once("listening", ready));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });

  after(async () => {
    http?.closeAllConnections();
    await new Promise<void>((closed) => (http ? http.close(() => closed()) : closed()));
    rmSync(outputDir, { recursive: true, force: true });
  });

  it("server-stateless at 2026-07-28 through toFetchHandler: every check passes", { timeout: RUN_TIMEOUT_MS + 10_000 }, async () => {
    const run = await runConformance(["server", "--url", url, "--scenario", "server-stateless", "--spec-version", "2026-07-28"], outputDir);
    assert.ok(run.checks.length >= 25, `expected the scenario's checks, got ${run.checks.length}:\n${run.output.slice(-2000)}`);
    const notPassing = run.checks.filter((check) => check.status !== "SUCCESS").map((check) => `${check.id}: ${check.status} ${check.errorMessage ?? ""}`);
    assert.deepEqual(notPassing, [], run.output.slice(-3000));
    assert.equal(run.code, 0, run.output.slice(-2000));
  });
});

/**
 * The official conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12) against
 * a server built on the generated runtime, over Streamable HTTP on 127.0.0.1. The suite
 * runs as a child process; on Node 20 it gets fs.globSync from our preload.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { serveHttp, type HttpServerHandle } from "../../generated/v2607/runtime/transports/http-server.js";
import { repoRoot } from "../support/schemas.js";
import { createConformanceServer } from "./support/conformance-server.js";

const CLI = join(repoRoot, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const PRELOAD = join(repoRoot, "test/conformance/support/node20.mjs");
const RUN_TIMEOUT_MS = 150_000;

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** Runs the conformance CLI; resolves with its exit code, output and every check it wrote. */
function runConformance(args: string[], outputDir: string): Promise<{ code: number | null; output: string; checks: Check[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", PRELOAD, CLI, ...args, "-o", outputDir], {
      cwd: outputDir,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output, checks: readChecks(outputDir) });
    });
  });
}

function readChecks(dir: string): Check[] {
  const checks: Check[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === "checks.json") {
      checks.push(...(JSON.parse(readFileSync(join(entry.parentPath ?? entry.path, entry.name), "utf8")) as Check[]));
    }
  }
  return checks;
}

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
});

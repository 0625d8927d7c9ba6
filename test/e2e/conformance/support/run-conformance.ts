/**
 * Runs the official conformance CLI (@modelcontextprotocol/conformance 0.2.0-alpha.12) as a
 * child process; on Node 20 it gets fs.globSync from our preload (node20.mjs).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { repoRoot } from "../../../support/schemas.js";

const CLI = join(repoRoot, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const PRELOAD = join(repoRoot, "test/e2e/conformance/support/node20.mjs");
export const RUN_TIMEOUT_MS = 150_000;

export interface Check {
  /** The scenario that reported it: the folder its checks.json was written to. */
  scenario: string;
  id: string;
  status: string;
  errorMessage?: string;
}

/** Runs the conformance CLI; resolves with its exit code, output and every check this run wrote, scored or not. */
export function runConformance(args: string[], parentDir: string): Promise<{ code: number | null; output: string; checks: Check[] }> {
  const outputDir = mkdtempSync(join(parentDir, "run-"));
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
      const folder = entry.parentPath ?? entry.path;
      const scenario = scenarioOf(relative(dir, folder).split(sep).join("/"));
      checks.push(...(JSON.parse(readFileSync(join(folder, entry.name), "utf8")) as Omit<Check, "scenario">[]).map((check) => ({ ...check, scenario })));
    }
  }
  return checks;
}

/**
 * The CLI names each scenario's folder `<side>-<scenario>-<timestamp>` in a server run and
 * `<scenario>-<timestamp>` in a client run, where a scenario such as `auth/basic-cimd` is a
 * folder below `auth/`.
 */
function scenarioOf(folder: string): string {
  return /^(?:server-|client-)?(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(folder)?.[1] ?? folder;
}

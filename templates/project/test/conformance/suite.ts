/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance, a dev
 * dependency) against a server URL, and compares what it reports with the failures
 * test/conformance-expected.json lists.
 */
import { spawn } from "node:child_process";
import fs, { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The installed suite's folder; undefined when the dev dependency is not installed. */
export const suiteDir = findSuite();
/** One revision's run; the suite's own per-scenario timeout is 30 s. */
export const RUN_TIMEOUT_MS = 120_000;
/** The project folder: this file runs as dist/test/conformance/suite.js. */
export const projectRoot = fileURLToPath(new URL("../../..", import.meta.url));
export const EXPECTED_FILE = "test/conformance-expected.json";

export interface Check {
  scenario: string;
  id: string;
  status: string;
  errorMessage?: string;
}

export interface SuiteRun {
  revision: string;
  code: number | null;
  /** Killed at RUN_TIMEOUT_MS: the checks are those of the scenarios that finished. */
  timedOut: boolean;
  output: string;
  checks: Check[];
}

function findSuite(): string | undefined {
  const require = createRequire(import.meta.url);
  try {
    return dirname(require.resolve("@modelcontextprotocol/conformance/package.json"));
  } catch {
    return undefined;
  }
}

/** The revisions the installed suite has a requirement set for (its requirements/<revision>.yaml). */
export function suiteRevisions(): string[] {
  if (suiteDir === undefined) return [];
  return readdirSync(join(suiteDir, "requirements"))
    .filter((name) => name.endsWith(".yaml"))
    .map((name) => basename(name, ".yaml"))
    .sort();
}

/** The revisions package.json lists under "mcp-gen": the ones this server serves. */
/**
 * Why the built server cannot start here, when it needs a Redis (a project made with
 * `--event-source redis`) and REDIS_URL names none; undefined when it can.
 */
export function redisMissing(): string | undefined {
  const manifest = JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8"));
  if (manifest.dependencies?.redis === undefined || process.env.REDIS_URL) return undefined;
  return "this server needs Redis: set REDIS_URL and MCP_STATE_KEY to run the suite against it";
}

export function servedRevisions(): string[] {
  const manifest = JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8"));
  return manifest["mcp-gen"].revisions;
}

/** Node 20 has no fs.globSync, which the suite imports: there, node20-fs.js supplies it. */
function nodeFlags(): string[] {
  if ("globSync" in fs) return [];
  return ["--import", new URL("./node20-fs.js", import.meta.url).href];
}

/** Runs the requirement set of `revision` against `url`; resolves with every check it wrote. */
export function runSuite(url: string, revision: string): Promise<SuiteRun> {
  const outputDir = mkdtempSync(join(tmpdir(), "conformance-"));
  const args = ["server", "--url", url, "--requirements", revision, "-o", outputDir];
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...nodeFlags(), join(suiteDir!, "dist/index.js"), ...args],
      {
        cwd: outputDir,
        env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, RUN_TIMEOUT_MS);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      try {
        resolve({ revision, code, timedOut, output, checks: readChecks(outputDir) });
      } finally {
        rmSync(outputDir, { recursive: true, force: true });
      }
    });
  });
}

/** Each scenario writes <side>-<scenario>-<timestamp>/checks.json. */
function readChecks(dir: string): Check[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((path) => basename(path) === "checks.json")
    .flatMap((path) => {
      const folder = basename(dirname(path));
      const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(folder)?.[1] ?? folder;
      const checks = JSON.parse(readFileSync(join(dir, path), "utf8")) as Omit<Check, "scenario">[];
      return checks.map((check) => ({ ...check, scenario }));
    });
}

/** One group of test/conformance-expected.json: checks that fail for one reason. */
interface ExpectedGroup {
  reason: string;
  /** The revisions it applies to; all when absent. */
  revisions?: string[];
  checks: string[];
}

/** The checks expected to fail at `revision`, each with its reason. */
export function expectedFailures(revision: string): Map<string, string> {
  const file = JSON.parse(readFileSync(join(projectRoot, EXPECTED_FILE), "utf8"));
  const groups = file.expected as ExpectedGroup[];
  const applying = groups.filter((group) => group.revisions?.includes(revision) ?? true);
  return new Map(
    applying.flatMap((group) => group.checks.map((id) => [id, group.reason] as const)),
  );
}

/** SUCCESS and INFO pass; SKIPPED is the suite's own decision. FAILURE and WARNING must be listed. */
const NOT_FAILING = new Set(["SUCCESS", "INFO", "SKIPPED"]);

/** The failing checks not listed, and the listed ones that now pass (to be taken out of the list). */
export function compare(run: SuiteRun, expected: Map<string, string>) {
  const failing = run.checks.filter((check) => !NOT_FAILING.has(check.status));
  const unexpected = failing
    .filter((check) => !expected.has(check.id))
    .map((check) => `${check.id} (${check.scenario}): ${check.status} ${check.errorMessage ?? ""}`);
  const passing = new Set(
    run.checks.filter((check) => check.status === "SUCCESS").map((c) => c.id),
  );
  const failingIds = new Set(failing.map((check) => check.id));
  const nowPassing = [...expected.keys()].filter((id) => passing.has(id) && !failingIds.has(id));
  return { failing: failing.length, unexpected, nowPassing };
}

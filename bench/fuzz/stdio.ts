/**
 * The stdio entry point under fuzz: a child process serving the fuzz app gets a seeded
 * stream of frames in random-sized chunks (CRLF and blank lines mixed in, the last line
 * sometimes without a newline), then EOF. It must exit 0 by itself, write only JSON-RPC
 * lines, answer each request exactly once (a listen request: its ack or an error), answer
 * each unparseable or invalid frame with an error, and nothing else. With a legacy version the
 * stream opens with `initialize` at that version and `notifications/initialized`, so the same
 * frames reach a legacy session (its codec, its own methods) under the same rules.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expectation, frame, legacyPool, modernPool, Random } from "./frames.js";
import { fail, newReport, type FuzzReport } from "./report.js";

const APP = fileURLToPath(new URL("./stdio-app.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const EXIT_LIMIT_MS = 30_000;
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
const ACK = "notifications/subscriptions/acknowledged";

export async function fuzzStdio(seed: number, count: number, legacyVersion?: string): Promise<FuzzReport> {
  const report = newReport(legacyVersion === undefined ? "stdio" : `stdio@${legacyVersion}`, seed);
  const random = new Random(seed);
  const pool = legacyVersion === undefined ? modernPool() : legacyPool();
  const fuzzed = Array.from({ length: count }, (_, i) => frame(random, random.chance(0.5) ? `f${i}` : 100_000 + i, pool));
  const frames = legacyVersion === undefined ? fuzzed : [...legacyOpening(legacyVersion), ...fuzzed];
  const input = frames.map((text, i) => text + (i === frames.length - 1 && random.chance(0.5) ? "" : random.chance(0.1) ? "\r\n" : "\n")).join("");
  report.frames = frames.length;

  const child = spawn(process.execPath, ["--import", "tsx", APP], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  child.stdin.on("error", () => {}); // reported below through the exit code
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  for (let at = 0; at < input.length;) {
    const size = 1 + random.int(4096);
    if (!child.stdin.write(input.slice(at, at + size))) await new Promise((resolve) => child.stdin.once("drain", resolve));
    at += size;
  }
  child.stdin.end();
  const timer = setTimeout(() => child.kill("SIGKILL"), EXIT_LIMIT_MS);
  const code = await exited;
  clearTimeout(timer);
  if (code !== 0) fail(report, -1, `the server exited with ${code}; stderr: ${stderr.slice(0, 300)}`);
  if (stderr.length > 0) fail(report, -1, `the server wrote to stderr: ${stderr.slice(0, 300)}`);
  checkAnswers(report, frames, stdout);
  if (legacyVersion !== undefined) checkSessionOpened(report, stdout, legacyVersion);
  return report;
}

function checkAnswers(report: FuzzReport, frames: string[], stdout: string): void {
  const answersById = new Map<unknown, number>();
  let unmatched = 0;
  const lines = stdout.split("\n").filter((line) => line.length > 0);
  const messages = lines.flatMap((line, i) => {
    try {
      const message = JSON.parse(line);
      if (message?.jsonrpc === "2.0") return [message];
    } catch {}
    fail(report, i, "the server wrote a line that is not JSON-RPC", line);
    return [];
  });
  for (const message of messages) {
    const key = message.method === ACK ? message.params?._meta?.[SUBSCRIPTION_ID] : message.method === undefined ? message.id : undefined;
    if (key === undefined) continue;
    answersById.set(key, (answersById.get(key) ?? 0) + 1);
  }
  const expectedById = new Map<unknown, number>();
  let refusalsDue = 0;
  frames.forEach((text) => {
    if (text.trim().length === 0) return; // blank lines are skipped by the framing
    const expected = expectation(text);
    if (expected.kind === "request") expectedById.set(expected.id, (expectedById.get(expected.id) ?? 0) + 1);
    else if (expected.kind === "parse-error" || expected.kind === "invalid") refusalsDue++;
  });
  report.requests = [...expectedById.values()].reduce((a, b) => a + b, 0);
  for (const [id, expected] of expectedById) {
    const got = answersById.get(id) ?? 0;
    answersById.delete(id);
    report.answered += Math.min(got, expected);
    if (got !== expected)
      fail(
        report,
        frames.findIndex((text) => text.includes(JSON.stringify(id))),
        `request id ${JSON.stringify(id)}: ${got} answers for ${expected} requests`,
      );
  }
  for (const count of answersById.values()) unmatched += count;
  report.answered += Math.min(unmatched, refusalsDue);
  if (unmatched !== refusalsDue) fail(report, -1, `${unmatched} answers to no request, for ${refusalsDue} unparseable or invalid frames`);
}

/** The two frames that open a legacy session at `version` before the fuzzed ones. */
function legacyOpening(version: string): string[] {
  const initialize = { protocolVersion: version, capabilities: {}, clientInfo: { name: "fuzz", version: "1" } };
  return [
    JSON.stringify({ jsonrpc: "2.0", id: "initialize", method: "initialize", params: initialize }),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  ];
}

/** The fuzzed frames reached a session only if `initialize` was answered with a result at that version. */
function checkSessionOpened(report: FuzzReport, stdout: string, version: string): void {
  const answer = stdout
    .split("\n")
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as { id?: unknown; result?: { protocolVersion?: unknown } }];
      } catch {
        return [];
      }
    })
    .find((message) => message.id === "initialize");
  if (answer?.result?.protocolVersion !== version)
    fail(report, 0, `initialize at ${version} was not answered with a session at it`, JSON.stringify(answer ?? null));
}

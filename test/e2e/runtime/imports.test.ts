/**
 * The runtime's import rule that needs a process of its own: a server made by the no-era
 * entry (modern.ts) loads nothing from legacy/, as a loader hook records every module the
 * process resolves while it serves one 2026-07-28 request. The rules read from the sources
 * alone are in test/runtime/imports.test.ts.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { test } from "node:test";
import { repoRoot } from "../../support/schemas.js";

const RUNTIME = join(repoRoot, "packages", "runtime", "src");

/** A loader hook that appends every module URL the process resolves to the file it is given. */
const RECORDER = `
import { appendFileSync } from "node:fs";
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(file, resolved.url + "\\n");
  return resolved;
}
`;

test("a server made by the no-era entry serves a 2026-07-28 request and loads nothing from legacy/", async () => {
  const record = join(mkdtempSync(join(tmpdir(), "mcp-loaded-")), "loaded.txt");
  const entry = pathToFileURL(join(RUNTIME, "modern.ts")).href;
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: {}, _meta: meta } };
  const script = `
import { register } from "node:module";
register("data:text/javascript,${encodeURIComponent(RECORDER)}", { data: { file: ${JSON.stringify(record)} } });
const { createServer, createHttpHandler } = await import(${JSON.stringify(entry)});
const { createServer: httpServer } = await import("node:http");
const server = createServer({ name: "no-era", version: "1" });
server.addTool({ name: "echo", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "hi" }] }));
const http = httpServer(createHttpHandler(server));
await new Promise((done) => http.listen(0, "127.0.0.1", done));
const response = await fetch("http://127.0.0.1:" + http.address().port + "/", {
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-method": "tools/call", "mcp-name": "echo", "mcp-protocol-version": "2026-07-28" },
  body: ${JSON.stringify(JSON.stringify(call))},
});
console.log(JSON.stringify({ status: response.status, body: await response.json() }));
await server.close();
http.close();
`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
  const timer = setTimeout(() => child.kill(), 60_000);
  const code = await new Promise<number | null>((done) => child.on("close", done));
  clearTimeout(timer);
  assert.equal(code, 0, stderr);
  const answer = JSON.parse(stdout.trim().split("\n").pop()!) as { status: number; body: { result?: { content?: unknown } } };
  assert.deepEqual(answer, { status: 200, body: { jsonrpc: "2.0", id: 1, result: answer.body.result } });
  assert.deepEqual(answer.body.result?.content, [{ type: "text", text: "hi" }]);
  const loaded = readFileSync(record, "utf8")
    .split("\n")
    .filter((url) => url !== "");
  const runtimeLoaded = loaded.filter((url) => url.startsWith(pathToFileURL(RUNTIME).href + "/"));
  assert.ok(
    runtimeLoaded.some((url) => url.endsWith("/server.ts")),
    "the record holds the runtime's modules",
  );
  const legacy = runtimeLoaded.filter((url) => fileURLToPath(url).startsWith(join(RUNTIME, "legacy") + sep));
  assert.deepEqual(legacy, []);
});

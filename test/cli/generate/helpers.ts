/**
 * Shared by the `mcp-gen types` tests: run the CLI from this checkout, temp folders, a
 * loopback HTTP server for URL input, and tsc --strict over generated files.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { repoRoot } from "../../support/schemas.js";
export { tempFolder } from "../../support/temp-folder.js";

const tsx = import.meta.resolve("tsx");

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a node script (async, so that an in-process HTTP server can answer it). */
export function runNode(args: string[], cwd = repoRoot, timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** `mcp-gen <args>` from the sources. */
export function runMcpGen(args: string[], cwd = repoRoot): Promise<Run> {
  return runNode(["--import", tsx, join(repoRoot, "cli", "main.ts"), ...args], cwd);
}

export function explain(run: Run): string {
  return `exit ${run.status}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
}

/** Writes a file, creating its folder. */
export function put(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** A copy of an upstream schema with `edit` applied, saved under `dir/<folder>/schema.json`. */
export function editedSchema(source: string, dir: string, folder: string, edit: (schema: any) => void): string {
  const schema = JSON.parse(readFileSync(source, "utf8"));
  edit(schema);
  return put(join(dir, folder, "schema.json"), JSON.stringify(schema, null, 2));
}

/** Serves `body` on 127.0.0.1 at a free port, counting the requests it answers; close() when done. */
export async function serveOnLoopback(body: string): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((_request, response) => {
    requests++;
    response.writeHead(200, { "content-type": "application/json" });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/schema/2026-07-28/schema.json`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** tsc --strict over the given files (native tsc, no project file); returns its run. */
export function tscStrict(files: string[]): Promise<Run> {
  const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  const flags = ["--ignoreConfig", "--strict", "--noEmit", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--skipLibCheck"];
  return runNode([tsc, ...flags, ...files]);
}

/**
 * The smallest schema the generator accepts (one request with its result), plus `defs`:
 * hostile-input tests start from it so that they do not pay for a whole upstream schema.
 * Returned as JSON text: keys such as `__proto__` must reach the generator as JSON.parse
 * makes them (own properties), which an object literal here would not.
 */
export function tinySchemaText(defs: Record<string, unknown> = {}, rawDefs = ""): string {
  const base = {
    ClientRequest: { anyOf: [{ $ref: "#/$defs/PingRequest" }] },
    PingRequest: { type: "object", properties: { method: { type: "string", const: "ping" } }, required: ["method"] },
    PingResult: { type: "object", properties: {} },
    ...defs,
  };
  const text = JSON.stringify({ $schema: "https://json-schema.org/draft/2020-12/schema", $defs: base });
  return rawDefs === "" ? text : text.replace(/\}\}$/, `,${rawDefs}}}`);
}

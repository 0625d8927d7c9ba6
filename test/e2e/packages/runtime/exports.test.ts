/**
 * The built runtime package as a project imports it (through this checkout's
 * node_modules/@mcp-gen/runtime, the link npm makes for its file: dev dependency): each entry loads and exports
 * the values its source entry exports, a class shared by two entries is one class, and no
 * path outside `exports` can be imported.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../../../support/schemas.js";

const RUNTIME = join(repoRoot, "packages", "runtime");
const manifest = JSON.parse(readFileSync(join(RUNTIME, "package.json"), "utf8")) as { name: string; exports: Record<string, unknown> };
const entries = Object.keys(manifest.exports)
  .filter((subpath) => subpath !== "./package.json")
  .map((subpath) => (subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`));

/** Runs a module body in a child node (no tsx: the package is plain JavaScript), from the checkout, and returns its stdout as JSON. */
function inNode(body: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ["--input-type=module", "-e", body], { cwd: repoRoot, encoding: "utf8", timeout: 60_000 });
}

test("each entry of the built package loads with plain node and exports the values of its source entry", async () => {
  for (const entry of entries) {
    const run = inNode(`const m = await import(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(m).sort()));`);
    assert.equal(run.status, 0, `${entry}: ${run.stderr}`);
    const source = entry === manifest.name ? "index.ts" : entry.endsWith("/modern") ? "modern.ts" : `${entry.slice(manifest.name.length + 1)}/index.ts`;
    const fromSource = Object.keys(await import(join(RUNTIME, "src", source))).sort();
    assert.deepEqual(JSON.parse(run.stdout), fromSource, entry);
  }
});

test("a class two entries export is the same class in both (shared chunks, not copies)", () => {
  const run = inNode(
    `const [main, client, transports] = await Promise.all(["", "/client", "/transports"].map((p) => import(${JSON.stringify(manifest.name)} + p)));` +
      `console.log(JSON.stringify([main.McpError === client.McpError, transports.HttpClientTransport === client.HttpClientTransport]));`,
  );
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), [true, true]);
});

test("no path outside the package's exports can be imported: its internals are not reachable", () => {
  for (const internal of ["src/server.ts", "dist/index.js", "dist/types/packages/runtime/src/server.d.ts", "server"]) {
    const run = inNode(`await import(${JSON.stringify(`${manifest.name}/${internal}`)});`);
    assert.notEqual(run.status, 0, `${internal} was importable`);
    assert.match(run.stderr, /ERR_PACKAGE_PATH_NOT_EXPORTED/, internal);
  }
});

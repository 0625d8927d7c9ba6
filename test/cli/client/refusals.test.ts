/**
 * `mcp-gen client` refusals that need no scaffold: a generated folder whose runtime predates
 * the client entry, and one with no revision folder at all. One line each, nothing written.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { explain, runMcpGen, tempFolder } from "../scaffold/helpers.js";

const temp = tempFolder("mcp-gen-client-refusals");
after(() => temp.remove());

test("a generated folder whose runtime has no client/ is named, with the command that regenerates it", () => {
  const project = join(temp.dir, "old");
  mkdirSync(join(project, "generated", "v2607", "runtime"), { recursive: true });
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "old", "mcp-gen": { out: "generated", revisions: ["2025-11-25", "2026-07-28"] } }));
  const run = runMcpGen(["client"], project);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /^error: .*generated has no runtime with a client in v2607 \(run `npx mcp-gen types` \(in a project\)/);
  assert.equal(run.stderr.split("\n").filter(Boolean).length, 1, run.stderr);
  assert.equal(existsSync(join(project, "generated", "client.ts")), false);
});

test("--generated without any revision folder is named", () => {
  const empty = join(temp.dir, "empty");
  mkdirSync(empty);
  const run = runMcpGen(["client", "--out", "client.ts", "--generated", "."], empty);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /^error: .*empty has no revision folder \(/);
  assert.equal(existsSync(join(empty, "client.ts")), false);
});

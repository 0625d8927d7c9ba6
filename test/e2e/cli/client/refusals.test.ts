/**
 * `mcp-gen client` refusals that need no scaffold: a generated folder whose runtime predates
 * the client entry, one with no revision folder at all, and a server whose tools/list never
 * ends. One line each, nothing written.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";
import { repoRoot } from "../../../support/schemas.js";
import { explain, runMcpGen, tempFolder } from "../../../cli/scaffold/helpers.js";

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

test("--from-url a server whose tools/list always has a next page: one line naming the page bound, nothing written", { timeout: 90_000 }, async () => {
  let pages = 0;
  // Each page one tool and a new cursor; past 1,100 pages the list ends, so a client without bounds fails this test instead of hanging it.
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const message = JSON.parse(body) as { id?: number; method?: string };
      if (message.id === undefined) return void response.writeHead(202).end();
      const cached = { resultType: "complete", ttlMs: 0, cacheScope: "private" };
      pages += message.method === "tools/list" ? 1 : 0;
      const result =
        message.method === "server/discover"
          ? { ...cached, supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, serverInfo: { name: "endless", version: "1" } }
          : { ...cached, tools: [{ name: `t${pages}`, inputSchema: { type: "object" } }], ...(pages < 1100 ? { nextCursor: `p${pages}` } : {}) };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    });
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const folder = join(temp.dir, "endless");
  mkdirSync(folder);
  try {
    const args = [
      "--import",
      import.meta.resolve("tsx"),
      join(repoRoot, "cli", "main.ts"),
      "client",
      "--from-url",
      url,
      "--out",
      "client.ts",
      "--generated",
      join(repoRoot, "generated"),
    ];
    const run = await promisify(execFile)(process.execPath, args, { cwd: folder, timeout: 60_000 }).then(
      () => assert.fail("mcp-gen client succeeded"),
      (error: { code?: number; stderr: string }) => error,
    );
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      /^error: tools\/list failed on http:\/\/127\.0\.0\.1:\d+\/mcp: tools\/list: the server has more after 1000 pages; pass a larger maxListPages/,
    );
    assert.equal(run.stderr.split("\n").filter(Boolean).length, 1, run.stderr);
    assert.equal(pages, 1000);
    assert.equal(existsSync(join(folder, "client.ts")), false);
  } finally {
    await new Promise<void>((closed) => server.close(() => closed()));
  }
});

/**
 * jose is loaded by the OAuth module only, and only once a token must be verified: a child
 * process whose module resolution refuses "jose" serves HTTP without OAuth, and builds an
 * OAuth resource server, untroubled; the first JWT it must verify then fails with the one
 * line saying to install jose (which also shows the refusal works).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { repoRoot } from "../../../support/schemas.js";
import { tempFolder } from "../../../cli/scaffold/helpers.js";

const HOOKS = `export async function resolve(specifier, context, next) {
  if (specifier === "jose") throw new Error("jose was imported");
  return next(specifier, context);
}
`;

const runtime = pathToFileURL(join(repoRoot, "packages", "runtime", "src", "index.ts")).href;

const SCRIPT = `
import { createServer, createResourceServer, serveHttp } from ${JSON.stringify(runtime)};
const server = createServer({ name: "plain", version: "1" });
server.addTool({ name: "t", inputSchema: { type: "object" } }, () => ({ content: [] }));
const http = await serveHttp(server);
const answered = await fetch(http.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
await answered.body?.cancel();
await http.close();
console.log("served without jose: HTTP " + answered.status);
const rs = createResourceServer({ resource: "https://example.com/mcp", issuers: "https://as.example" });
console.log("resource server built without jose");
const jwt = [{ alg: "RS256" }, { iss: "https://as.example" }, "sig"].map((part) => Buffer.from(typeof part === "string" ? part : JSON.stringify(part)).toString("base64url")).join(".");
try {
  await rs.authenticate({ headers: { authorization: "Bearer " + jwt } });
  console.log("verified without jose?");
} catch (error) {
  console.log("first token: " + error.message);
}
`;

test("a server without OAuth never loads jose; the first token to verify does, with one line when it is missing", { timeout: 60_000 }, () => {
  const temp = tempFolder("mcp-gen-lazy-jose");
  try {
    const hooks = join(temp.dir, "hooks.mjs");
    writeFileSync(hooks, HOOKS);
    const register = `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(hooks).href)});`;
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", "--import", `data:text/javascript,${encodeURIComponent(register)}`, "--input-type=module", "-e", SCRIPT],
      {
        cwd: repoRoot,
        encoding: "utf8",
        timeout: 50_000,
      },
    );
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split("\n");
    assert.match(lines[0]!, /^served without jose: HTTP \d+$/);
    assert.equal(lines[1], "resource server built without jose");
    assert.match(lines[2]!, /^first token: OAuth needs the jose package, which could not be loaded \(.*jose was imported.*\); add it: npm install jose$/);
  } finally {
    temp.remove();
  }
});

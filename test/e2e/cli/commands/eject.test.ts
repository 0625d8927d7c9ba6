/**
 * `mcp-gen eject runtime` on a new project (not installed: it borrows this checkout's
 * node_modules): the runtime's source lands in src/runtime/, package.json names it and no
 * longer depends on the package, and the project still builds, passes its own tests and
 * regenerates as up to date.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { explain, runCreate, runIn, runMcpGen, tempFolder } from "../../../cli/scaffold/helpers.js";
import { repoRoot } from "../../../support/schemas.js";

const E2E = { timeout: 300_000 };
let temp: ReturnType<typeof tempFolder>;
let app: string;
before(() => {
  temp = tempFolder("mcp-gen-eject");
  const run = runCreate(["app", "--yes", "--no-install", "--no-git", "--transport", "both"], temp.dir);
  assert.equal(run.status, 0, explain(run));
  app = join(temp.dir, "app");
  symlinkSync(join(repoRoot, "node_modules"), join(app, "node_modules"), "dir");
});
after(() => temp.remove());

const manifest = () => JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as { dependencies: Record<string, string>; "mcp-gen": { runtime?: string } };

test("eject runtime copies the source into src/runtime/, names it in package.json and drops the package", E2E, () => {
  assert.equal(manifest()["mcp-gen"].runtime, "@mcp-gen/runtime");
  const run = runMcpGen(["eject", "runtime"], app);
  assert.equal(run.status, 0, explain(run));
  assert.match(run.stdout, /^created src\/runtime\/ \(\d+ files: the runtime's source\)$/m);
  assert.match(run.stdout, /^update package\.json$/m);
  assert.ok(existsSync(join(app, "src", "runtime", "index.ts")));
  assert.equal(manifest()["mcp-gen"].runtime, "./src/runtime");
  assert.equal(manifest().dependencies["@mcp-gen/runtime"], undefined);
  assert.match(readFileSync(join(app, "generated", "index.ts"), "utf8"), /^export \* from "\.\.\/src\/runtime\/index\.js";$/m);
  assert.match(readFileSync(join(app, "src", "runtime", "protocol.ts"), "utf8"), /^export \* from "\.\.\/\.\.\/generated\/facts\.js";$/m);
});

test("the ejected project builds, passes its own tests and its generated/ is up to date", E2E, () => {
  const build = runIn(app, process.execPath, [join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"]);
  assert.equal(build.status, 0, explain(build));
  const files = readdirSync(join(app, "dist", "test")).filter((name) => name.endsWith(".test.js"));
  assert.ok(files.length > 0, "the project has tests");
  const tests = runIn(app, process.execPath, ["--test", ...files.map((name) => join("dist", "test", name))]);
  assert.equal(tests.status, 0, explain(tests));
  assert.match(tests.stdout, /^# fail 0$/m);
  const check = runMcpGen(["types", "--check"], app);
  assert.equal(check.status, 0, explain(check));
});

test("a second eject is one line and changes nothing", E2E, () => {
  const before = readFileSync(join(app, "package.json"), "utf8");
  const run = runMcpGen(["eject", "runtime"], app);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /^error: the project's runtime is already in its tree \(\.\/src\/runtime\), not a package to eject/m);
  assert.equal(
    run.stderr
      .trim()
      .split("\n")
      .filter((line) => line.startsWith("error:")).length,
    1,
  );
  assert.equal(readFileSync(join(app, "package.json"), "utf8"), before);
});

import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { explain, runCreate, runMcpGen, tempFolder } from "../../../cli/scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
let app: string;
before(() => {
  temp = tempFolder("mcp-gen-project-edit");
  const run = runCreate(["app", "--yes", "--no-install", "--no-git", "--transport", "stdio"], temp.dir);
  assert.equal(run.status, 0, explain(run));
  app = join(temp.dir, "app");
});
after(() => temp.remove());

test("a generator run from a subfolder edits the project found above it, as git finds its repository", { timeout: 300_000 }, () => {
  const run = runMcpGen(["tool", "Weather"], join(app, "src", "tools"));
  assert.equal(run.status, 0, explain(run));
  assert.match(run.stdout, /^create src\/tools\/weather\.ts$/m);
  assert.ok(existsSync(join(app, "src", "tools", "weather.ts")));
  assert.ok(!existsSync(join(app, "src", "tools", "src")), "nothing written under the subfolder");
  // A package.json of its own (without an "mcp-gen" key) does not stop the walk.
  const nested = join(app, "scripts", "deep");
  mkdirSync(nested, { recursive: true });
  writeFileSync(join(app, "scripts", "package.json"), "{}\n");
  for (const args of [
    ["handler", "Audit"],
    ["resource", "Orders"],
    ["prompt", "Summarize"],
    ["transport", "Socket"],
  ]) {
    const dry = runMcpGen([...args, "--dry-run"], nested);
    assert.equal(dry.status, 0, explain(dry));
    assert.match(dry.stdout, /^would create (src|test)\//m, args[0]);
  }
  const fromProjectOption = runMcpGen(["prompt", "Summarize", "--dry-run", "--project", join(app, "test")], temp.dir);
  assert.equal(fromProjectOption.status, 0, explain(fromProjectOption));
});

test("outside any project a generator names the folder and the markers it looked for", () => {
  const run = runMcpGen(["tool", "Weather"], temp.dir);
  assert.equal(run.status, 1, explain(run));
  assert.equal(run.stdout, "");
  assert.match(
    run.stderr,
    /^error: \S+ is not a project made by create-mcp-handler, nor inside one \(no package\.json with an "mcp-gen" key, or package\.json and src\/server\.ts, in it or a folder above it\) \(run this inside the project, or pass --project <dir>\)\n$/,
  );
});

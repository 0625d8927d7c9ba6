import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { repoRoot, schemaPath } from "../../support/schemas.js";
import { explain, tempFolder, type Run } from "../../cli/generate/helpers.js";

/**
 * The published package works when installed elsewhere. The package is staged (compiled into
 * its own dist/, with the folders package.json "files" names) and packed there, so that the
 * checkout's own dist/ is never rebuilt under other running tests; npm pack applies "files".
 */
const SLOW = { timeout: 300_000 };
const env = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false", npm_config_loglevel: "error" };

let temp: ReturnType<typeof tempFolder>;
let bin: string;
let installed: string;

function run(command: string, args: string[], cwd: string): Run {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env, timeout: 240_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

before(() => {
  temp = tempFolder("mcp-gen-pack");
  const stage = join(temp.dir, "stage");
  const build = run(
    process.execPath,
    [join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json", "--outDir", join(stage, "dist")],
    repoRoot,
  );
  assert.ok(existsSync(join(stage, "dist", "cli", "main.js")), explain(build));
  for (const entry of ["package.json", "README.md", "templates", "generated", "schemas", "cli", "packages"]) {
    if (existsSync(join(repoRoot, entry))) cpSync(join(repoRoot, entry), join(stage, entry), { recursive: true });
  }
  const pack = run("npm", ["pack", "--ignore-scripts", "--pack-destination", temp.dir], stage);
  assert.equal(pack.status, 0, explain(pack));
  const tarball = readdirSync(temp.dir).find((name) => name.endsWith(".tgz"));
  assert.ok(tarball, "npm pack made a tarball");

  const app = join(temp.dir, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", private: true, type: "module" }));
  const install = run("npm", ["install", "--prefer-offline", join(temp.dir, tarball)], app);
  assert.equal(install.status, 0, explain(install));
  installed = join(app, "node_modules");
  bin = join(installed, ".bin", "mcp-gen");
}, SLOW);
after(() => temp.remove());

test("the installed mcp-gen prints its help, listing the types command", SLOW, () => {
  const help = run(bin, ["--help"], temp.dir);
  assert.equal(help.status, 0, explain(help));
  assert.match(help.stdout, /mcp-gen types +Generate types, method maps and capability maps/);
});

/** generated/v2607 is committed with the tasks extension, which the package ships and resolves by name. */
const TASKS = ["--extension", "io.modelcontextprotocol/tasks"];

test("the installed mcp-gen types writes the same files as the checkout has committed", SLOW, () => {
  const out = join(temp.dir, "out");
  const types = run(bin, ["types", "--schema", schemaPath("2026-07-28"), ...TASKS, "--out", out], temp.dir);
  assert.equal(types.status, 0, explain(types));
  const committed = join(repoRoot, "generated", "v2607");
  // The manifest is left out: it records the library versions this install resolved.
  for (const file of ["types.ts", "methods.ts", "capabilities.ts"]) {
    assert.equal(readFileSync(join(out, "v2607", file), "utf8"), readFileSync(join(committed, file), "utf8"), file);
  }
  // Outside a project no runtime is kept elsewhere: the copy beside the revision is the package's source with the header.
  const header = readFileSync(join(committed, "types.ts"), "utf8").split("\n")[0];
  const source = readFileSync(join(repoRoot, "packages", "runtime", "src", "index.ts"), "utf8");
  assert.equal(readFileSync(join(out, "v2607", "runtime", "index.ts"), "utf8"), `${header}\n${source}`);
  const check = run(bin, ["types", "--schema", schemaPath("2026-07-28"), ...TASKS, "--out", out, "--check"], temp.dir);
  assert.equal(check.status, 0, explain(check));
});

test("--check on unchanged output loads none of the code-generation libraries", SLOW, () => {
  const out = join(temp.dir, "out");
  // Only their package.json stays (the generator fingerprint reads the versions): loading
  // any of their code from here on fails.
  for (const library of ["json-schema-to-typescript", "prettier", "ts-morph"]) {
    for (const entry of readdirSync(join(installed, library))) {
      if (entry !== "package.json") rmSync(join(installed, library, entry), { recursive: true, force: true });
    }
  }
  const check = run(bin, ["types", "--schema", schemaPath("2026-07-28"), ...TASKS, "--out", out, "--check"], temp.dir);
  assert.equal(check.status, 0, explain(check));
  assert.match(check.stdout, /is up to date with MCP 2026-07-28/);
  writeFileSync(join(out, "v2607", "types.ts"), "// edited\n");
  const stale = run(bin, ["types", "--schema", schemaPath("2026-07-28"), ...TASKS, "--out", out, "--check"], temp.dir);
  assert.notEqual(stale.status, 0, "drift takes the full path, which needs the libraries");
});

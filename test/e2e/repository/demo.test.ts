/**
 * `npm run demo` (package.json) replaces the earlier demo in `.tmp/demo` entirely: its steps
 * between the build and `npm start` run here in a temp folder (create from this checkout's source)
 * over a demo that holds a file the new one does not, and that file is gone.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { explain, npmEnv, tempFolder } from "../../cli/scaffold/helpers.js";
import { repoRoot } from "../../support/schemas.js";

const temp = tempFolder("mcp-gen-demo");
after(() => temp.remove());

/** The demo script's steps after `npm run build` and before `cd .tmp/demo`: what makes the demo folder. */
function demoSteps(): string[] {
  const script = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: { demo: string } }).scripts.demo;
  const steps = script.split(" && ");
  assert.equal(steps[0], "npm run build", script);
  const entering = steps.indexOf("cd .tmp/demo");
  assert.ok(entering > 1, script);
  return steps.slice(1, entering);
}

/** A step that runs the built create, run from this checkout's source instead (CI's clone is not built). */
function fromSource(step: string): string {
  const built = "node dist/cli/create.js";
  if (!step.startsWith(built)) return step;
  return `${JSON.stringify(process.execPath)} --import ${JSON.stringify(import.meta.resolve("tsx"))} ${JSON.stringify(join(repoRoot, "cli", "create.ts"))}${step.slice(built.length)}`;
}

test("npm run demo replaces an earlier demo entirely: a file only the earlier one had is gone", { timeout: 300_000 }, () => {
  const steps = demoSteps();
  assert.ok(
    steps.some((step) => fromSource(step) !== step),
    "the demo creates with node dist/cli/create.js",
  );
  const earlier = join(temp.dir, ".tmp", "demo");
  mkdirSync(join(earlier, "src", "tools"), { recursive: true });
  writeFileSync(join(earlier, "package.json"), '{ "name": "demo" }\n');
  writeFileSync(join(earlier, "src", "tools", "from-an-earlier-demo.ts"), "export const stale = true;\n");
  const run = spawnSync("sh", ["-c", steps.map(fromSource).join(" && ")], { cwd: temp.dir, encoding: "utf8", env: npmEnv, timeout: 280_000 });
  assert.equal(run.status, 0, explain({ status: run.status, stdout: run.stdout, stderr: run.stderr }));
  assert.equal(existsSync(join(earlier, "src", "tools", "from-an-earlier-demo.ts")), false, "the earlier demo's file is gone");
  assert.ok(existsSync(join(earlier, "src", "server.ts")), "the new demo is in place");
  assert.ok(existsSync(join(earlier, "node_modules")), "and installed");
});

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import { explain, npmEnv, runCreate, runIn, tempFolder, type Run } from "./helpers.js";

/**
 * A new project installs without a warning and passes its tests under npm, pnpm and yarn.
 * pnpm and yarn come from the npm registry into a temp prefix; when they cannot be
 * installed (no registry), their tests skip and say why.
 */
let temp: ReturnType<typeof tempFolder>;
let managersBin: string | undefined;
let managersMissing = "";
// npm's default log level, so that its warnings show (the helpers' npmEnv silences them).
const env: NodeJS.ProcessEnv = { ...npmEnv, npm_config_loglevel: "warn" };

before(
  () => {
    temp = tempFolder("mcp-gen-install");
    const prefix = join(temp.dir, "managers");
    const install = runIn(temp.dir, "npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", "pnpm@10", "yarn@1"], 240_000);
    if (install.status === 0) managersBin = join(prefix, "node_modules", ".bin");
    else
      managersMissing = `pnpm and yarn could not be installed from the npm registry (${install.stderr.trim().split("\n").at(-1) ?? `exit ${install.status}`})`;
  },
  { timeout: 300_000 },
);
after(() => temp.remove());

const SLOW = { timeout: 400_000 };

function run(cwd: string, command: string, args: string[]): Run {
  return runIn(cwd, command, args, 300_000);
}

/** Scaffolds for `pm`, installs with it, and checks the install said nothing worth a warning. */
function installWith(pm: string, command: string): string {
  const created = runCreate([`app-${pm}`, "--yes", "--no-install", "--no-git", "--pm", pm], temp.dir);
  assert.equal(created.status, 0, explain(created));
  const app = join(temp.dir, `app-${pm}`);
  const install = run(app, command, ["install"]);
  assert.equal(install.status, 0, explain(install));
  assert.doesNotMatch(`${install.stdout}\n${install.stderr}`, /\bwarn(ing)?\b/i, explain(install));
  return app;
}

function passesItsTests(app: string, command: string): void {
  const tests = run(app, command, ["test"]);
  assert.equal(tests.status, 0, explain(tests));
  assert.match(tests.stdout, /# fail 0/);
}

function manager(t: TestContext, name: string): string | undefined {
  if (managersBin) return join(managersBin, name);
  t.skip(managersMissing);
  return undefined;
}

test("npm installs a new project without a warning (no install script in the file: dependency)", SLOW, () => {
  const app = installWith("npm", "npm");
  passesItsTests(app, "npm");
});

test("pnpm installs a new project without a warning, and its tests pass", SLOW, (t) => {
  const pnpm = manager(t, "pnpm");
  if (!pnpm) return;
  const app = installWith("pnpm", pnpm);
  passesItsTests(app, pnpm);
});

test("yarn installs a new project without a warning, and its tests pass", SLOW, (t) => {
  const yarn = manager(t, "yarn");
  if (!yarn) return;
  const app = installWith("yarn", yarn);
  passesItsTests(app, yarn);
});

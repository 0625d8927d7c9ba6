import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { builtCopy, explain, npmEnv, runIn, tempFolder, type Run } from "../../../cli/scaffold/helpers.js";
import { repoRoot } from "../../../support/schemas.js";

const version = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).version as string;

/**
 * A new project made from a built checkout (so it keeps the generator as a tarball in
 * vendor/) installs without a warning and passes its tests under npm, pnpm and yarn. pnpm
 * and yarn are this repository's dev dependencies (`npm ci` installs them; nothing is
 * downloaded here), found by Node's resolution from the repository root.
 */
let temp: ReturnType<typeof tempFolder>;
let createBin: string;
// npm's default log level, so that its warnings show (the helpers' npmEnv silences them).
const env: NodeJS.ProcessEnv = { ...npmEnv, npm_config_loglevel: "warn" };

before(
  () => {
    temp = tempFolder("mcp-gen-install");
    createBin = join(builtCopy(temp.dir), "dist", "cli", "create.js");
  },
  { timeout: 300_000 },
);
after(() => temp.remove());

const SLOW = { timeout: 400_000 };

/** `command` is the program and its leading arguments (`node .../pnpm.cjs`). */
function run(cwd: string, command: string[], args: string[]): Run {
  return runIn(cwd, command[0]!, [...command.slice(1), ...args], 300_000);
}

/** Scaffolds for `pm`, installs with it, and checks the install said nothing worth a warning. */
function installWith(pm: string, command: string[]): string {
  const created = runIn(temp.dir, process.execPath, [createBin, `app-${pm}`, "--yes", "--no-install", "--no-git", "--pm", pm]);
  assert.equal(created.status, 0, explain(created));
  const app = join(temp.dir, `app-${pm}`);
  assert.equal(JSON.parse(readFileSync(join(app, "package.json"), "utf8")).devDependencies["mcp-gen"], `file:vendor/mcp-gen-${version}.tgz`);
  const install = run(app, command, ["install"]);
  assert.equal(install.status, 0, explain(install));
  assert.doesNotMatch(`${install.stdout}\n${install.stderr}`, /\bwarn(ing)?\b/i, explain(install));
  return app;
}

function passesItsTests(app: string, command: string[]): void {
  const tests = run(app, command, ["test"]);
  assert.equal(tests.status, 0, explain(tests));
  assert.match(tests.stdout, /# fail 0/);
}

/**
 * How to run a dev-dependency package manager: Node on the bin its package.json names, the
 * package found where Node's resolution looks from the repository (its exports hide the bin).
 */
function manager(name: "pnpm" | "yarn"): string[] {
  const folders = createRequire(join(repoRoot, "package.json")).resolve.paths(name) ?? [];
  const found = folders.map((folder) => join(folder, name)).find((folder) => existsSync(join(folder, "package.json")));
  if (found === undefined) throw new Error(`${name} is a dev dependency of this repository but is not installed: run npm ci`);
  const bin = (JSON.parse(readFileSync(join(found, "package.json"), "utf8")) as { bin: Record<string, string> }).bin[name]!;
  return [process.execPath, join(found, bin)];
}

test("npm installs a new project without a warning (the generator from vendor/, no install script)", SLOW, () => {
  const app = installWith("npm", ["npm"]);
  passesItsTests(app, ["npm"]);
});

test("pnpm installs a new project without a warning, and its tests pass", SLOW, () => {
  const pnpm = manager("pnpm");
  const app = installWith("pnpm", pnpm);
  passesItsTests(app, pnpm);
});

test("yarn installs a new project without a warning, from the vendored tarball (not a copy of the checkout), and its tests pass", SLOW, () => {
  // yarn 1 keeps a file: tarball in its cache by name and version (and its cache clean misses a
  // scoped one), so a rebuilt tarball of the same version would not be read: a cache of its own.
  const yarn = [...manager("yarn"), "--cache-folder", join(temp.dir, "yarn-cache")];
  const app = installWith("yarn", yarn);
  const installed = runIn(app, "du", ["-sk", join(app, "node_modules", "mcp-gen")]);
  assert.ok(Number(installed.stdout.split(/\s/)[0]) < 20_000, `node_modules/mcp-gen holds the package, not the checkout: ${installed.stdout}`);
  passesItsTests(app, yarn);
});

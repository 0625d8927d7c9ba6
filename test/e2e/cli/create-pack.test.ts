import assert from "node:assert/strict";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import { repoRoot } from "../../support/schemas.js";
import { builtCopy, explain, runIn, tempFolder } from "../../cli/scaffold/helpers.js";

// Both packages packed the way they would be published: mcp-gen (built in a copy of the
// sources, so this checkout's dist/ is left alone) and the create-mcp-handler wrapper.
let temp: ReturnType<typeof tempFolder>;
let generatorTarball: string;
let createTarball: string;
const version = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).version as string;
const wrapperDir = join(repoRoot, "packages", "create-mcp-handler");

before(
  () => {
    temp = tempFolder("mcp-gen-pack");
    const source = builtCopy(temp.dir);
    for (const dir of [source, wrapperDir]) {
      const pack = runIn(dir, "npm", ["pack", "--ignore-scripts", "--pack-destination", temp.dir]);
      assert.equal(pack.status, 0, explain(pack));
    }
    generatorTarball = join(temp.dir, `mcp-gen-${version}.tgz`);
    createTarball = join(temp.dir, `create-mcp-handler-${version}.tgz`);
  },
  { timeout: 240_000 },
);

after(() => {
  // npx installs each new tarball into its own cache folder; drop the ones made here.
  const npxCache = join(homedir(), ".npm", "_npx");
  for (const entry of existsSync(npxCache) ? readdirSync(npxCache) : []) {
    const manifest = join(npxCache, entry, "package.json");
    if (existsSync(manifest) && readFileSync(manifest, "utf8").includes(temp.dir)) rmSync(join(npxCache, entry), { recursive: true, force: true });
  }
  temp.remove();
});

const E2E = { timeout: 240_000 };

test("create-mcp-handler depends on exactly this version of mcp-gen", () => {
  const wrapper = JSON.parse(readFileSync(join(wrapperDir, "package.json"), "utf8"));
  assert.equal(wrapper.version, version);
  assert.equal(wrapper.dependencies["mcp-gen"], version);
  assert.deepEqual(wrapper.bin, { "create-mcp-handler": "bin.js" });
});

test("from the tarballs, `npx create-mcp-handler` runs the bin of that name; the project installs mcp-gen from the same tarball", E2E, () => {
  const work = join(temp.dir, "work");
  mkdirSync(work);
  const run = runIn(work, "npx", [
    "--yes",
    `--package=${generatorTarball}`,
    `--package=${createTarball}`,
    "create-mcp-handler",
    "app",
    "--yes",
    "--no-git",
    "--transport",
    "stdio",
  ]);
  assert.equal(run.status, 0, explain(run));
  assert.match(run.stdout, /Next:\n\n {2}cd app\n {2}npm test\n {2}npm start\n/);
  const app = join(work, "app");
  const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
  assert.equal(manifest.devDependencies["mcp-gen"], `file:vendor/mcp-gen-${version}.tgz`, "a tarball kept in the project, named relatively");
  assert.deepEqual(readFileSync(join(app, "vendor", `mcp-gen-${version}.tgz`)), readFileSync(generatorTarball), "the very tarball npx installed");
  assert.equal(lstatSync(join(app, "node_modules", "mcp-gen")).isSymbolicLink(), false, "installed from the tarball, not linked");
});

test("inside that project `npx mcp-gen` resolves the local dev dependency, and the result passes its tests", E2E, () => {
  const app = join(temp.dir, "work", "app");
  // --no-install: npx may only use what the project has; it must not fetch a package.
  const handler = runIn(app, "npx", ["--no-install", "mcp-gen", "handler", "Audit", "--notifications", "resources"]);
  assert.equal(handler.status, 0, explain(handler));
  assert.match(handler.stdout, /create src\/handlers\/audit\.ts/);
  const tests = runIn(app, "npm", ["test"]);
  assert.equal(tests.status, 0, explain(tests));
  assert.match(tests.stdout, /# fail 0/);
});

/**
 * Moves a project to a folder of another depth, drops what it installed, and runs its
 * `npm install && npm test` there: everything comes from the project's vendor/ tarball and
 * the npm cache (`--prefer-offline`), nothing from where it was made.
 */
function movedStillInstallsAndPasses(app: string, label: string): void {
  const moved = join(temp.dir, "elsewhere", label, "deeper", "app");
  mkdirSync(join(moved, ".."), { recursive: true });
  rmSync(join(app, "node_modules"), { recursive: true, force: true });
  renameSync(app, moved);
  const install = runIn(moved, "npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], 240_000);
  assert.equal(install.status, 0, explain(install));
  assert.equal(lstatSync(join(moved, "node_modules", "mcp-gen")).isSymbolicLink(), false, "installed from vendor/, not linked");
  const tests = runIn(moved, "npm", ["test"], 240_000);
  assert.equal(tests.status, 0, explain(tests));
  assert.match(tests.stdout, /# fail 0/);
}

test("a project made from the tarball, moved elsewhere, runs its npm install && npm test without the tarball it was made from", E2E, () => {
  renameSync(generatorTarball, `${generatorTarball}.away`);
  try {
    movedStillInstallsAndPasses(join(temp.dir, "work", "app"), "from-tarball");
  } finally {
    renameSync(`${generatorTarball}.away`, generatorTarball);
  }
});

test("a project made from a built checkout keeps a packed tarball of it; moved elsewhere, it runs its npm install && npm test", E2E, () => {
  const work = join(temp.dir, "work-checkout");
  mkdirSync(work);
  const created = runIn(work, process.execPath, [join(temp.dir, "source", "dist", "cli", "create.js"), "app", "--yes", "--no-git", "--no-install", "--transport", "stdio"]);
  assert.equal(created.status, 0, explain(created));
  const manifest = JSON.parse(readFileSync(join(work, "app", "package.json"), "utf8"));
  assert.equal(manifest.devDependencies["mcp-gen"], `file:vendor/mcp-gen-${version}.tgz`);
  assert.doesNotMatch(JSON.stringify(manifest), /file:\//, "no absolute path anywhere");
  movedStillInstallsAndPasses(join(work, "app"), "from-checkout");
});

test("from a built checkout, creating a project never loads handlebars: the templates are stored at build time", E2E, () => {
  // A resolve hook makes handlebars unresolvable in the create process.
  const hook = join(temp.dir, "no-handlebars.mjs");
  writeFileSync(
    hook,
    `export async function resolve(specifier, context, next) {
  if (specifier === "handlebars" || specifier.startsWith("handlebars/")) throw new Error("handlebars was loaded");
  return next(specifier, context);
}\n`,
  );
  const register = join(temp.dir, "no-handlebars-register.mjs");
  writeFileSync(register, `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`);
  const work = join(temp.dir, "work-no-handlebars");
  mkdirSync(work);
  const bin = join(temp.dir, "source", "dist", "cli", "create.js");
  const created = runIn(work, process.execPath, ["--import", register, bin, "app", "--yes", "--no-git", "--no-install", "--transport", "both"]);
  assert.equal(created.status, 0, explain(created));
  assert.match(readFileSync(join(work, "app", "package.json"), "utf8"), /"start:stdio"/, "the templated package.json was rendered");
  // The hook does bite: a template edited after the build is parsed with handlebars, which it refuses.
  const template = join(temp.dir, "source", "templates", "project", "README.md.hbs");
  const original = readFileSync(template, "utf8");
  writeFileSync(template, `${original}\nedited\n`);
  try {
    const edited = runIn(work, process.execPath, ["--import", register, bin, "app-edited", "--yes", "--no-git", "--no-install"]);
    assert.notEqual(edited.status, 0);
    assert.match(edited.stderr, /handlebars was loaded/);
  } finally {
    writeFileSync(template, original);
  }
});

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { explain, npmEnv, runIn, tempFolder } from "../../../cli/scaffold/helpers.js";
import { storePinnedCopies } from "../../../../cli/generate/pinned-copies.js";
import { readLock } from "../../../../cli/generate/verify.js";
import { offlineCopy, type OfflineCopy } from "../../../support/offline-copy.js";
import { repoRoot, schemaPath } from "../../../support/schemas.js";

/**
 * `mcp-gen app Dashboard` as the README writes it, in a fresh scaffold, with no network: the
 * copy of mcp-gen it runs from lacks @modelcontextprotocol/ext-apps (a project's install of
 * mcp-gen has none of its development packages) and pins every schema at a loopback port
 * nothing listens on, carrying the pinned schemas as a build stores them; npm works offline,
 * from its cache.
 */
const APPS = "@modelcontextprotocol/ext-apps";
const SLOW = { timeout: 400_000 };

let temp: ReturnType<typeof tempFolder>;
let copy: OfflineCopy;
let onlyNewest: string;

before(
  async () => {
    temp = tempFolder("mcp-gen-offline-app");
    copy = await offlineCopy(temp.dir, [APPS]);
    const stored = await storePinnedCopies(readLock(), { MCP_SCHEMAS_DIR: dirname(dirname(schemaPath("2026-07-28"))) }, copy.root);
    assert.ok(
      stored.every((entry) => "from" in entry),
      JSON.stringify(stored),
    );
    // $MCP_SCHEMAS_DIR with the one schema the app's regeneration reads.
    onlyNewest = join(temp.dir, "only-newest");
    mkdirSync(onlyNewest);
    symlinkSync(dirname(schemaPath("2026-07-28")), join(onlyNewest, "2026-07-28"));
  },
  { timeout: 120_000 },
);
after(() => temp.remove());

function scaffold(name: string): string {
  const created = copy.run("create", [name, "--yes", "--no-install", "--no-git"], temp.dir, npmEnv);
  assert.equal(created.status, 0, explain(created));
  return join(temp.dir, name);
}

const offlineNpm = { ...npmEnv, npm_config_offline: "true" };

test(
  "mcp-gen app installs the extension package it reads, regenerates only the revision it changes from the schema mcp-gen carries, and the project's tests pass",
  SLOW,
  () => {
    const project = scaffold("demo");
    const app = copy.run("main", ["app", "Dashboard"], project, { ...offlineNpm, MCP_SCHEMAS_DIR: "" });
    assert.equal(app.status, 0, explain(app));
    assert.match(app.stdout, new RegExp(`^adding ${APPS}, playwright-core, esbuild to package\\.json and installing them with npm: `, "m"));
    assert.match(app.stdout, /^create src\/apps\/dashboard\.ts$/m);
    const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
    const own = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
    assert.equal(manifest.dependencies[APPS], own.devDependencies[APPS], "the range mcp-gen is tested with");
    assert.ok(existsSync(join(project, "node_modules", APPS, "package.json")), "installed in the project");
    assert.match(readFileSync(join(project, "generated", "v2607", "capabilities.ts"), "utf8"), /"io\.modelcontextprotocol\/ui": \{/);

    const tests = runIn(project, "npm", ["test"], 300_000);
    assert.equal(tests.status, 0, explain(tests));
    assert.match(tests.stdout, /^ok \d+ - dashboard is listed with its view's link for a client that declares the extension$/m);
  },
);

test("when the install fails (offline, nothing cached), the project is left as it was and one line says so", SLOW, () => {
  const project = scaffold("demo-uncached");
  const before = readFileSync(join(project, "package.json"), "utf8");
  const emptyCache = join(temp.dir, "empty-npm-cache");
  mkdirSync(emptyCache);
  const app = copy.run("main", ["app", "Dashboard"], project, { ...offlineNpm, npm_config_cache: emptyCache, MCP_SCHEMAS_DIR: onlyNewest });
  assert.equal(app.status, 1, explain(app));
  const lines = app.stderr.trim().split("\n");
  assert.equal(lines.length, 1, explain(app));
  assert.match(lines[0]!, new RegExp(`^error: \`npm install\` failed in ${project}, so ${APPS} is not installed; nothing was changed \\(`));
  assert.equal(readFileSync(join(project, "package.json"), "utf8"), before);
  assert.equal(existsSync(join(project, "src", "apps")), false);
  assert.equal(existsSync(join(project, "node_modules", APPS)), false);
});

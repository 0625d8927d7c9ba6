import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import { listFiles } from "../../../../cli/toolbox/files.js";
import { explain, npmEnv, runCreate, runIn, runMcpGen, schemasDir, tempFolder } from "../../../cli/scaffold/helpers.js";
import { legacyStdioClient } from "./legacy-raw.js";
import { requestMeta } from "./raw-client.js";

/**
 * `mcp-gen app Dashboard` end to end: scaffold, run the generator, install, and run the
 * project's own tests, the browser one included (headless Chromium from /usr/bin/chromium;
 * without it that test alone skips, saying why).
 */
const CHROMIUM = "/usr/bin/chromium";
const SLOW = { timeout: 400_000 };

let temp: ReturnType<typeof tempFolder>;
let project: string;
let generated: ReturnType<typeof runMcpGen>;

before(
  () => {
    temp = tempFolder("mcp-gen-app");
    const created = runCreate(["demo", "--yes", "--no-install", "--no-git"], temp.dir);
    assert.equal(created.status, 0, explain(created));
    project = join(temp.dir, "demo");
    generated = runMcpGen(["app", "Dashboard"], project, { MCP_SCHEMAS_DIR: schemasDir() });
  },
  { timeout: 180_000 },
);
after(() => temp.remove());

const read = (path: string) => readFileSync(join(project, path), "utf8");

test("mcp-gen app writes the view, its tool and resource, its test, and registers them", () => {
  assert.equal(generated.status, 0, explain(generated));
  for (const path of [
    "src/apps/dashboard.ts",
    "src/apps/dashboard/view.html",
    "src/apps/dashboard/view.ts",
    "src/apps/page.ts",
    "test/app-host.ts",
    "test/dashboard.app.test.ts",
  ]) {
    assert.match(generated.stdout, new RegExp(`^create ${path.replaceAll(".", "\\.")}$`, "m"), path);
  }
  assert.match(read("src/tools/index.ts"), /import \{ addDashboardAppTool \} from "\.\.\/apps\/dashboard\.js";[\s\S]*addDashboardAppTool,\n\];/);
  assert.match(read("src/resources/index.ts"), /addDashboardAppResource,\n\];/);
  assert.match(read("src/apps/dashboard.ts"), /const UI = EXTENSIONS\["io\.modelcontextprotocol\/ui"\];/);
  assert.match(read("src/apps/dashboard/view.html"), /<script type="module" src="\.\/view\.js"><\/script>/);
});

test("the project's runtime revision is regenerated with the published schema, and its packages are added", () => {
  const manifest = JSON.parse(read("package.json"));
  assert.deepEqual(manifest["mcp-gen"].extensions["2026-07-28"], ["io.modelcontextprotocol/tasks", "@modelcontextprotocol/ext-apps"]);
  assert.ok(manifest.dependencies["@modelcontextprotocol/ext-apps"]);
  assert.ok(manifest.devDependencies["playwright-core"] && manifest.devDependencies.esbuild);
  const capabilities = read("generated/v2607/capabilities.ts");
  assert.match(capabilities, /"io\.modelcontextprotocol\/ui": \{[\s\S]*metaKey: "ui",[\s\S]*mimeTypes: \["text\/html;profile=mcp-app"\],/);
});

test("the project installs without a warning and its npm test passes, the browser test included", SLOW, () => {
  // npm's default log level, so that its warnings show (the helpers' npmEnv silences them).
  const run = spawnSync("npm", ["install"], { cwd: project, encoding: "utf8", env: { ...npmEnv, npm_config_loglevel: "warn" }, timeout: 300_000 });
  const install = { status: run.status, stdout: run.stdout, stderr: run.stderr };
  assert.equal(install.status, 0, explain(install));
  assert.doesNotMatch(`${install.stdout}\n${install.stderr}`, /\bwarn(ing)?\b/i, explain(install));
  const tests = runIn(project, "npm", ["test"], 300_000);
  assert.equal(tests.status, 0, explain(tests));
  assert.match(tests.stdout, /# fail 0/);
  for (const name of [
    "dashboard is listed with its view's link for a client that declares the extension",
    "the view reads as an HTML page with the extension's MIME type, the app-side bridge inlined",
    "a client that does not declare the extension sees neither the tool nor the view",
  ]) {
    assert.match(tests.stdout, new RegExp(`^ok \\d+ - ${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`, "m"), name);
  }
  const browser = /^ok \d+ - the view renders in a host and calls dashboard through it( # SKIP .*)?$/m.exec(tests.stdout);
  assert.ok(browser, explain(tests));
  const screenshot = join(project, "dist", "test", "artifacts", "dashboard.png");
  if (existsSync(CHROMIUM)) {
    assert.equal(browser[1], undefined, "the browser test ran");
    assert.ok(statSync(screenshot).size > 0, "the screenshot is kept");
    assert.match(read(".gitignore"), /^dist\/$/m, "under the git-ignored dist/");
  } else {
    assert.match(browser[1] ?? "", /# SKIP no Chromium at \/usr\/bin\/chromium/);
  }
});

test("without a browser only the browser test skips, saying why", SLOW, () => {
  const env = { ...npmEnv, CHROMIUM: join(temp.dir, "no-such-chromium") };
  const run = spawnSync(process.execPath, ["--test", "dist/test/dashboard.app.test.js"], { cwd: project, encoding: "utf8", env, timeout: 120_000 });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^ok \d+ - the view renders in a host and calls dashboard through it # SKIP no Chromium at .*no-such-chromium/m);
  assert.match(run.stdout, /^# pass 3$/m);
  assert.match(run.stdout, /^# skipped 1$/m);
});

test("built by npm run build, the server started from its bundle (node dist/src/main.js) serves the view's page", SLOW, async () => {
  const build = runIn(project, "npm", ["run", "build"], 180_000);
  assert.equal(build.status, 0, explain(build));
  // The extension as the project generated it: what a client that supports MCP Apps declares.
  const { EXTENSIONS } = (await import(pathToFileURL(join(project, "dist", "src", "mcp.js")).href)) as { EXTENSIONS: Record<string, { mimeTypes?: string[] }> };
  const [id, ui] = Object.entries(EXTENSIONS).find(([, extension]) => extension.mimeTypes !== undefined)!;
  const meta = { ...requestMeta("2026-07-28"), "io.modelcontextprotocol/clientCapabilities": { extensions: { [id]: { mimeTypes: [ui.mimeTypes![0]] } } } };
  const server = legacyStdioClient(process.execPath, ["dist/src/main.js", "--stdio"], project);
  const ask = (requestId: string, method: string, params: Record<string, unknown> = {}) => {
    server.write({ jsonrpc: "2.0", id: requestId, method, params: { ...params, _meta: meta } });
    return server.until((message) => message.id === requestId);
  };
  try {
    const listed = await ask("list", "resources/list");
    const view = (listed?.result?.resources as Array<{ uri: string; mimeType?: string }> | undefined)?.find(
      (resource) => resource.mimeType === ui.mimeTypes![0],
    );
    assert.ok(view, JSON.stringify(listed));
    const read = await ask("read", "resources/read", { uri: view.uri });
    const text = String(read?.result?.contents?.[0]?.text ?? JSON.stringify(read));
    assert.match(text, /^<!doctype html>/i, "src/apps/page.ts found the view's files from inside the bundle");
    assert.match(text, /const ExtApps = \{/, "the bridge is inlined");
  } finally {
    await server.close();
  }
});

test("a second run with the same name is refused in one line and changes nothing", () => {
  const before = listFiles(join(project, "src"));
  const again = runMcpGen(["app", "Dashboard"], project, { MCP_SCHEMAS_DIR: schemasDir() });
  assert.equal(again.status, 1, explain(again));
  assert.equal(
    again.stderr.trim().split("\n")[0],
    `error: refusing to overwrite src/apps/dashboard.ts, src/apps/dashboard/view.html, src/apps/dashboard/view.ts, test/dashboard.app.test.ts in ${project} (pass --force to overwrite, or choose another name)`,
  );
  assert.deepEqual(listFiles(join(project, "src")), before);
});

test("a name that is not PascalCase is refused before anything is read", () => {
  const bad = runMcpGen(["app", "my-view"], project);
  assert.equal(bad.status, 2, explain(bad));
  assert.match(bad.stderr, /^error: invalid app name "my-view": use PascalCase/m);
});

test("--dry-run lists what a second app would write and writes nothing", () => {
  const dry = runMcpGen(["app", "Board", "--dry-run"], project, { MCP_SCHEMAS_DIR: schemasDir() });
  assert.equal(dry.status, 0, explain(dry));
  assert.match(dry.stdout, /^would create src\/apps\/board\.ts$/m);
  assert.doesNotMatch(dry.stdout, /src\/apps\/page\.ts/, "the shared page builder is kept, not written again");
  assert.equal(existsSync(join(project, "src", "apps", "board.ts")), false);
});

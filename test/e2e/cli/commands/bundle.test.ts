/**
 * `mcp-gen bundle` on a scaffolded stdio project (sharing this checkout's installed packages,
 * built with its tsc): the manifest passes the official `mcpb validate` (the
 * `@anthropic-ai/mcpb` CLI, a dev dependency of this repository); unzipped into an empty folder, the server the
 * manifest's mcp_config starts with plain `node` answers the official SDK client's
 * `tools/list` with the tools the manifest names. The zip holds the production dependencies
 * only, the same project makes the same bytes, and a bound refuses an oversized bundle;
 * server-json lists the bundle as an mcpb package with its sha256.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { explain, runCreate, runIn, runMcpGen, startMcpGen, tempFolder, within } from "../../../cli/scaffold/helpers.js";
import { repoRoot } from "../../../support/schemas.js";

const E2E = { timeout: 300_000 };
/** The mcpb CLI the manifest is checked with (2.1.x: its `latest` schema is manifest 0.3), installed with this repository's dev dependencies. */
const MCPB_CLI = join(repoRoot, "node_modules", ".bin", "mcpb");
let temp: ReturnType<typeof tempFolder>;
let app: string;

type Manifest = { tools: Array<{ name: string }>; server: { mcp_config: { command: string; args: string[] } } };

before(() => {
  temp = tempFolder("mcp-gen-bundle");
  const create = runCreate(["app", "--yes", "--no-install", "--no-git", "--transport", "stdio"], temp.dir);
  assert.equal(create.status, 0, explain(create));
  app = join(temp.dir, "app");
  symlinkSync(join(repoRoot, "node_modules"), join(app, "node_modules"));
  const built = runIn(app, join(app, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"]);
  assert.equal(built.status, 0, explain(built));
}, E2E);

after(() => temp?.remove());

/** Unzips `archive` into a new empty folder with Info-ZIP's unzip. */
function unzipped(archive: string, name: string): string {
  const dir = join(temp.dir, name);
  mkdirSync(dir);
  const run = spawnSync("unzip", ["-q", archive, "-d", dir], { encoding: "utf8", timeout: 60_000 });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  return dir;
}

/** Lists the tools of the server an unzipped bundle's manifest starts, as a client starts it, with the official client. */
async function listedTools(dir: string, manifest: Manifest): Promise<string[]> {
  const { args } = manifest.server.mcp_config;
  // ${__dirname} is the folder the bundle was unpacked into; nothing of this checkout on the path.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: args.map((arg) => arg.replace("${__dirname}", dir)),
    cwd: dir,
    env: { PATH: process.env.PATH ?? "" },
    stderr: "pipe",
  });
  const client = new Client({ name: "bundle-test", version: "1.0.0" });
  try {
    await client.connect(transport);
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await within(client.close(), 10_000, undefined);
  }
}

test("the bundle passes mcpb validate, and unzipped, its entry point started with plain node lists the manifest's tools to the official client", E2E, async () => {
  const run = await startMcpGen(["bundle"], app);
  assert.equal(run.status, 0, explain(run));
  assert.match(run.stdout, /^wrote app-0\.1\.0\.mcpb \(\d+ files, \d+ bytes; 2 tools, \d+ settings\)\nsha256 [0-9a-f]{64}\n$/);
  const dir = unzipped(join(app, "app-0.1.0.mcpb"), "installed");

  const validated = runIn(dir, MCPB_CLI, ["validate", join(dir, "manifest.json")]);
  assert.equal(validated.status, 0, explain(validated));
  assert.match(validated.stdout, /Manifest schema validation passes/);

  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Manifest;
  assert.equal(manifest.server.mcp_config.command, "node");
  assert.ok(manifest.tools.length > 0);
  assert.deepEqual(await listedTools(dir, manifest), manifest.tools.map((tool) => tool.name));
});

test("the bundle holds the built server and the production dependencies only: no tests, no dev tools, no .bin links", E2E, () => {
  const dir = join(temp.dir, "installed");
  assert.deepEqual(readdirSync(dir).sort(), ["dist", "manifest.json", "node_modules", "package.json"]);
  assert.ok(existsSync(join(dir, "node_modules", "ajv", "package.json")), "ajv, a dependency, is there");
  for (const dev of ["typescript", "@types", "mcp-gen", "tsx", ".bin"]) assert.equal(existsSync(join(dir, "node_modules", dev)), false, dev);
  assert.equal(existsSync(join(dir, "dist", "test")), false);
  assert.equal(existsSync(join(dir, "dist", ".tsbuildinfo")), false);
  assert.equal(readlinkSync(join(app, "node_modules")), join(repoRoot, "node_modules"), "the project's node_modules is left as it was");
});

test("the same project makes the same bytes: a second bundle has the same sha256", E2E, async () => {
  const first = await startMcpGen(["bundle", "--out", "first.mcpb"], app);
  const second = await startMcpGen(["bundle", "--out", "second.mcpb"], app);
  assert.equal(first.status, 0, explain(first));
  assert.equal(second.status, 0, explain(second));
  const sha = (run: { stdout: string }) => /sha256 ([0-9a-f]{64})/.exec(run.stdout)?.[1];
  assert.equal(sha(first), sha(second));
  assert.deepEqual(readFileSync(join(app, "first.mcpb")), readFileSync(join(app, "second.mcpb")));
});

test("a bundle past --max-files is refused, naming the bound, and no file is written", E2E, async () => {
  const run = await startMcpGen(["bundle", "--max-files", "10", "--out", "bounded.mcpb"], app);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /^error: the bundle would hold more than 10 files/m);
  assert.match(run.stderr, /--max-files raises the bound/);
  assert.equal(existsSync(join(app, "bounded.mcpb")), false);
  assert.equal(existsSync(join(app, "bounded.mcpb.partial")), false);
});

test("server-json lists the bundle as an mcpb package with its sha256, keeps the entry on later runs, and --check names a rebuilt bundle's sha256", E2E, async () => {
  const env = { MCP_REGISTRY_SCHEMA_DIR: join(repoRoot, "..", "shared", "registry") };
  const url = "https://github.com/octocat/app/releases/download/v0.1.0/app-0.1.0.mcpb";
  const sha256 = createHash("sha256").update(readFileSync(join(app, "app-0.1.0.mcpb"))).digest("hex");
  const first = runMcpGen(["server-json", "--name", "io.github.octocat/app", "--bundle", "app-0.1.0.mcpb", "--bundle-url", url], app, env);
  assert.equal(first.status, 0, explain(first));
  const packages = () => (JSON.parse(readFileSync(join(app, "server.json"), "utf8")) as { packages: unknown[] }).packages;
  const entry = { registryType: "mcpb", identifier: url, version: "0.1.0", fileSha256: sha256, transport: { type: "stdio" } };
  assert.deepEqual(packages()[1], entry);

  const again = runMcpGen(["server-json"], app, env);
  assert.equal(again.status, 0, explain(again));
  assert.deepEqual(packages()[1], entry, "kept without --bundle");
  const check = runMcpGen(["server-json", "--check"], app, env);
  assert.equal(check.status, 0, explain(check));

  writeFileSync(join(app, "other.mcpb"), "a different bundle");
  const drifted = runMcpGen(["server-json", "--check", "--bundle", "other.mcpb"], app, env);
  assert.equal(drifted.status, 1, explain(drifted));
  assert.match(drifted.stderr, /packages\[1\]\.fileSha256/);
});

test("a project serving stdio and HTTP is bundled started with --stdio, and unzipped it answers the official client over stdio", E2E, async () => {
  const create = runCreate(["both", "--yes", "--no-install", "--no-git", "--transport", "both"], temp.dir);
  assert.equal(create.status, 0, explain(create));
  const both = join(temp.dir, "both");
  symlinkSync(join(repoRoot, "node_modules"), join(both, "node_modules"));
  const built = runIn(both, join(both, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"]);
  assert.equal(built.status, 0, explain(built));
  const run = await startMcpGen(["bundle"], both);
  assert.equal(run.status, 0, explain(run));
  const dir = unzipped(join(both, "both-0.1.0.mcpb"), "installed-both");
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Manifest & { user_config?: Record<string, unknown> };
  assert.deepEqual(manifest.server.mcp_config.args, ["${__dirname}/dist/src/main.js", "--stdio"]);
  assert.equal(manifest.user_config?.["port"], undefined, "PORT, read by the HTTP server only, is not asked for");
  assert.deepEqual(await listedTools(dir, manifest), manifest.tools.map((tool) => tool.name));
});

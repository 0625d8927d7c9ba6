/**
 * The Dockerfile `create-mcp-handler --docker` writes, replayed without a container engine
 * (test/support/dockerfile-replay.ts reads the Dockerfile itself): each stage a scratch
 * folder, its COPY steps from the project (less what .dockerignore leaves out), the final
 * stage's `npm ci --omit=dev` run for real from the project's lockfile, then its ENTRYPOINT
 * and CMD started as the command. The result answers the official SDK client over HTTP on
 * loopback and over stdio, and its HEALTHCHECK passes against it. The build stage's full
 * `npm ci` alone is stood in for by this repository's installed packages (its compiler),
 * which spares downloading every dev tool; its `npm run build` runs as written.
 * `mcp-gen docker` then keeps to the files it wrote.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { explain, npmEnv, runCreate, runIn, runMcpGen, servedAt, startProcess, tempFolder, within } from "../../../../cli/scaffold/helpers.js";
import { replayDockerfile, replayRun, type ReplayedImage } from "../../../../support/dockerfile-replay.js";
import { repoRoot } from "../../../../support/schemas.js";

const E2E = { timeout: 400_000 };
let temp: ReturnType<typeof tempFolder>;
let app: string;
let image: ReplayedImage;

/** The image's command as a process here: `node` is this Node. */
function imageCommand(args: string[]): { command: string; args: string[] } {
  const [program, ...rest] = args;
  return { command: program === "node" ? process.execPath : program!, args: rest };
}

/** The environment a container of the image starts with, on this machine: its ENV over PATH alone. */
function containerEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "", ...image.env, ...extra };
}

before(() => {
  temp = tempFolder("mcp-gen-docker");
  const create = runCreate(["app", "--yes", "--no-install", "--no-git", "--transport", "both", "--docker"], temp.dir);
  assert.equal(create.status, 0, explain(create));
  app = join(temp.dir, "app");
  unlinkCheckout(app);
  // The lockfile the image installs from, resolved from npm's cache.
  const locked = spawnSync("npm", ["install", "--package-lock-only", "--ignore-scripts"], { cwd: app, env: npmEnv, encoding: "utf8", timeout: 300_000 });
  assert.equal(locked.status, 0, explain({ status: locked.status, stdout: locked.stdout, stderr: locked.stderr }));
  image = replayDockerfile(app, join(temp.dir, "image"), (command, cwd, env) => {
    if (command.startsWith("npm ci")) assertLockedFilesPresent(cwd);
    if (command.startsWith("npm ci") && !command.includes("--omit=dev")) symlinkSync(join(repoRoot, "node_modules"), join(cwd, "node_modules"));
    else replayRun(command, cwd, env, npmEnv);
  });
}, E2E);

after(() => temp?.remove());

/**
 * Made from an unbuilt checkout (CI's), a project names mcp-gen by the checkout's own folder
 * (`file:/...`), which no image can reach; one made by a built, packed or published mcp-gen
 * vendors it or names a version. The folder link is dropped here, as it is a dev dependency
 * the final stage leaves out anyway.
 */
function unlinkCheckout(dir: string): void {
  const path = join(dir, "package.json");
  const manifest = JSON.parse(readFileSync(path, "utf8")) as { devDependencies?: Record<string, string> };
  const spec = manifest.devDependencies?.["mcp-gen"];
  if (spec === undefined || !spec.startsWith("file:") || spec.startsWith("file:vendor/")) return;
  delete manifest.devDependencies!["mcp-gen"];
  writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * Every `file:` package the lockfile names is in the stage's folder before its install: npm
 * here (and in a build whose cache mount is warm) would take the same bytes from its cache
 * by their integrity, but an image built on a cold cache reads them from the folder.
 */
function assertLockedFilesPresent(cwd: string): void {
  const lock = JSON.parse(readFileSync(join(cwd, "package-lock.json"), "utf8")) as { packages: Record<string, { resolved?: string }> };
  const files = Object.values(lock.packages).flatMap((entry) => (entry.resolved?.startsWith("file:") ? [entry.resolved.slice("file:".length)] : []));
  assert.ok(files.length > 0, "the project's lockfile names its vendored tarballs");
  for (const file of files) assert.ok(existsSync(join(cwd, file)), `${file} is copied into the stage before npm ci`);
}

test("the Dockerfile's final stage installs the production dependencies from the lockfile, as the unprivileged node user, without sources or dev tools", E2E, () => {
  assert.deepEqual(image.runs, ["npm ci --no-audit --no-fund", "npm run build", "npm ci --omit=dev --no-audit --no-fund"]);
  assert.equal(image.user, "node");
  assert.ok(existsSync(join(image.workdir, "node_modules", "@mcp-gen", "runtime", "package.json")), "the runtime, from vendor/, is installed");
  assert.ok(existsSync(join(image.workdir, "node_modules", "ajv", "package.json")));
  for (const dev of ["typescript", "mcp-gen", "@types", "@modelcontextprotocol/conformance"]) assert.equal(existsSync(join(image.workdir, "node_modules", dev)), false, dev);
  for (const absent of ["src", "test", "tsconfig.json", join("dist", "test")]) assert.equal(existsSync(join(image.workdir, absent)), false, absent);
  assert.equal(image.env.HOST, "0.0.0.0", "reachable through docker run -p");
});

test("the image's command serves HTTP on HOST and PORT from the environment, the official client lists the tools, and the health check passes until it stops", E2E, async () => {
  const { command, args } = imageCommand([...image.entrypoint, ...image.cmd]);
  const server = startProcess(command, args, { cwd: image.workdir, env: containerEnv({ HOST: "127.0.0.1", PORT: "0", SHUTDOWN_DELAY_MS: "0" }) });
  const check = () => {
    const { command: program, args: checkArgs } = imageCommand(image.healthcheck!);
    return spawnSync(program, checkArgs, { cwd: image.workdir, env: containerEnv({ PORT: url.port }), encoding: "utf8", timeout: 30_000 }).status;
  };
  let url: URL;
  try {
    url = await servedAt(server);
    const client = new Client({ name: "docker-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url));
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(tools.includes("toggle_greet") && tools.includes("ask_name"), tools.join(", "));
    } finally {
      await within(client.close(), 10_000, undefined);
    }
    assert.equal(check(), 0, "healthy while serving");
  } finally {
    await server.stop();
  }
  assert.equal(check(), 1, "unhealthy once nothing answers /healthz");
});

test("the image started with --stdio (docker run -i ... --stdio) answers the official client over stdin and stdout", E2E, async () => {
  const { command, args } = imageCommand([...image.entrypoint, "--stdio"]);
  const client = new Client({ name: "docker-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, cwd: image.workdir, env: containerEnv(), stderr: "pipe" }));
  try {
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(tools.includes("toggle_greet"), tools.join(", "));
  } finally {
    await within(client.close(), 10_000, undefined);
  }
});

test("mcp-gen docker rewrites only the files it wrote: a second run changes nothing, and a Dockerfile of someone else's is refused unless --force", E2E, () => {
  const again = runMcpGen(["docker"], app);
  assert.equal(again.status, 0, explain(again));
  assert.equal(again.stdout, ".dockerignore and Dockerfile already up to date\n");

  const own = "FROM node:22\nCMD [\"node\", \"server.js\"]\n";
  writeFileSync(join(app, "Dockerfile"), own);
  const refused = runMcpGen(["docker"], app);
  assert.equal(refused.status, 1, explain(refused));
  assert.match(refused.stderr, /^error: Dockerfile exists and mcp-gen did not write it; nothing was written/m);
  assert.equal(readFileSync(join(app, "Dockerfile"), "utf8"), own);

  const forced = runMcpGen(["docker", "--force"], app);
  assert.equal(forced.status, 0, explain(forced));
  assert.equal(forced.stdout, "wrote Dockerfile\n.dockerignore already up to date\n");
  assert.match(forced.stderr, /replaced a Dockerfile mcp-gen had not written/);
  assert.match(readFileSync(join(app, "Dockerfile"), "utf8"), /^# Written by mcp-gen docker/);
});

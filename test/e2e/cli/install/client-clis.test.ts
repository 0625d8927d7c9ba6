/**
 * The clients themselves read what `mcp-gen install` wrote: in a temporary HOME with no
 * login, each client's own command that lists MCP servers is run against a scaffolded
 * project (stdio and HTTP). Claude Code (`claude mcp list`) and Gemini CLI (`gemini mcp
 * list`) connect to each server and say so; Codex's `codex mcp list` does not connect, so
 * what it shows is that it reads the entry as an enabled server with the command or URL
 * written. Every CLI is resolved from this repository's node_modules: a missing one fails
 * its test, naming the package to add as a dev dependency.
 *
 * Nothing leaves loopback: each CLI's nonessential traffic (telemetry, update checks) is
 * switched off where it has a setting, and any other request goes to a proxy on a closed
 * loopback port; the servers themselves are on 127.0.0.1, which NO_PROXY exempts.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { explain, runCreate, runIn, runMcpGen, servedAt, startProcess, tempFolder, type Run } from "../../../cli/scaffold/helpers.js";
import { freePort } from "../../../support/ports.js";
import { repoRoot } from "../../../support/schemas.js";

const NAME = "listed-both";
const E2E = { timeout: 300_000 };
/** How long one CLI's list may take: each starts or reaches the server, Gemini CLI loads a large bundle. */
const LIST_TIMEOUT_MS = 180_000;
let temp: ReturnType<typeof tempFolder>;
let app: string;
let closedProxy: string;

/** A CLI as a package of this repository's node_modules and the bin it runs. */
interface ClientCli {
  client: "claude-code" | "gemini" | "codex";
  packageName: string;
  bin: string;
}

const CLAUDE: ClientCli = { client: "claude-code", packageName: "@anthropic-ai/claude-code", bin: "claude" };
const GEMINI: ClientCli = { client: "gemini", packageName: "@google/gemini-cli", bin: "gemini" };
const CODEX: ClientCli = { client: "codex", packageName: "@openai/codex", bin: "codex" };

/** The CLI's command, from the package's bin in node_modules (a script runs with this Node); a missing package fails naming it. */
function cliCommand(cli: ClientCli): string[] {
  const folder = join(repoRoot, "node_modules", cli.packageName);
  if (!existsSync(join(folder, "package.json"))) {
    throw new Error(`${cli.packageName} is not installed in node_modules: add it as a dev dependency (npm install --save-dev ${cli.packageName})`);
  }
  const bins = (JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as { bin: Record<string, string> }).bin;
  const bin = join(folder, bins[cli.bin]!);
  return /\.[cm]?js$/.test(bin) ? [process.execPath, bin] : [bin];
}

/** A HOME of its own for one run, with the settings that keep a CLI quiet where it has a file for them. */
function freshHome(label: string): string {
  const home = join(temp.dir, `home-${label}`);
  mkdirSync(join(home, ".gemini"), { recursive: true });
  // Gemini CLI turns off every MCP server, user-level ones too, in a folder not trusted; a person trusts it when asked on the first run.
  writeFileSync(join(home, ".gemini", "trustedFolders.json"), JSON.stringify({ [app]: "TRUST_FOLDER" }));
  writeFileSync(
    join(home, ".gemini", "settings.json"),
    JSON.stringify({ privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }, null, 2),
  );
  return home;
}

/** The environment a CLI runs in: only HOME decides where it reads, and no request leaves loopback. */
function cliEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    HTTP_PROXY: closedProxy,
    HTTPS_PROXY: closedProxy,
    NO_PROXY: "127.0.0.1,localhost",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    NO_COLOR: "1",
  };
}

/** Installs the project into `cli`'s user file in `home`, then runs the CLI's `mcp list` there. */
function installThenList(cli: ClientCli, home: string, transport: "stdio" | "http", url?: URL, listArgs: string[] = []): Run {
  const command = cliCommand(cli);
  const install = runMcpGen(["install", cli.client, "--scope", "user", "--transport", transport, ...(url ? ["--url", url.href] : [])], app, { HOME: home, XDG_CONFIG_HOME: "", CLAUDE_CONFIG_DIR: "", CODEX_HOME: "" });
  assert.equal(install.status, 0, explain(install));
  const run = spawnSync(command[0]!, [...command.slice(1), "mcp", "list", ...listArgs], { cwd: app, env: cliEnv(home), encoding: "utf8", timeout: LIST_TIMEOUT_MS });
  return { status: run.status, stdout: run.stdout ?? "", stderr: run.stderr ?? "" };
}

/** Runs `body` with the project's HTTP server listening on loopback. */
async function withHttpServer(body: (url: URL) => void | Promise<void>): Promise<void> {
  const server = startProcess(process.execPath, [join("dist", "src", "main.js"), "--http"], {
    cwd: app,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", SHUTDOWN_DELAY_MS: "0" },
  });
  try {
    await body(await servedAt(server));
  } finally {
    await server.stop();
  }
}

before(async () => {
  temp = tempFolder("mcp-gen-client-clis");
  closedProxy = `http://127.0.0.1:${await freePort()}`;
  const created = runCreate([NAME, "--yes", "--no-git", "--no-install", "--transport", "both"], temp.dir);
  assert.equal(created.status, 0, explain(created));
  app = join(temp.dir, NAME);
  symlinkSync(join(repoRoot, "node_modules"), join(app, "node_modules"));
  const build = runIn(app, join(app, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], 300_000);
  assert.equal(build.status, 0, explain(build));
}, E2E);

after(() => temp?.remove());

/** What a CLI printed: Gemini CLI writes its list to stderr, Claude Code to stdout. */
const printed = (run: Run) => `${run.stdout}\n${run.stderr}`;

const connectedLine = (cli: ClientCli) =>
  cli === CLAUDE ? new RegExp(`^${NAME}: .* - ✔ Connected$`, "m") : new RegExp(`^✓ ${NAME}: .* - Connected$`, "m");

for (const cli of [CLAUDE, GEMINI]) {
  test(`${cli.bin} mcp list shows the stdio server mcp-gen install wrote as connected`, E2E, () => {
    const listed = installThenList(cli, freshHome(`${cli.bin}-stdio`), "stdio");
    assert.equal(listed.status, 0, explain(listed));
    assert.match(printed(listed), connectedLine(cli), explain(listed));
    assert.match(printed(listed), /dist\/src\/main\.js --stdio/);
  });

  test(`${cli.bin} mcp list shows the HTTP server mcp-gen install wrote as connected`, E2E, async () => {
    await withHttpServer((url) => {
      const listed = installThenList(cli, freshHome(`${cli.bin}-http`), "http", url);
      assert.equal(listed.status, 0, explain(listed));
      assert.match(printed(listed), connectedLine(cli), explain(listed));
      assert.ok(printed(listed).includes(url.href), explain(listed));
    });
  });
}

type CodexListed = Array<{ name: string; enabled: boolean; transport: { type: string; command?: string; args?: string[]; url?: string } }>;

test("codex mcp list reads the stdio and HTTP entries mcp-gen install wrote as enabled servers (Codex lists them without connecting)", E2E, async () => {
  const stdio = installThenList(CODEX, freshHome("codex-stdio"), "stdio", undefined, ["--json"]);
  assert.equal(stdio.status, 0, explain(stdio));
  const [local] = JSON.parse(stdio.stdout) as CodexListed;
  assert.deepEqual({ name: local?.name, enabled: local?.enabled, type: local?.transport.type }, { name: NAME, enabled: true, type: "stdio" });
  assert.deepEqual(local!.transport.args, [join(app, "dist", "src", "main.js"), "--stdio"]);

  await withHttpServer((url) => {
    const http = installThenList(CODEX, freshHome("codex-http"), "http", url, ["--json"]);
    assert.equal(http.status, 0, explain(http));
    const [remote] = JSON.parse(http.stdout) as CodexListed;
    assert.deepEqual({ name: remote?.name, enabled: remote?.enabled, type: remote?.transport.type, url: remote?.transport.url }, { name: NAME, enabled: true, type: "streamable_http", url: url.href });
  });
});

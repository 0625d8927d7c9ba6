/**
 * `mcp-gen install` end to end, in a temporary HOME holding each client's configuration
 * with another server already in it: a scaffolded project (stdio and HTTP) is installed
 * into all six clients, the files keep the other server and their layout, a second run
 * changes nothing, and what was written starts (stdio) or reaches (HTTP) the project's
 * server with the official MCP client. The clients themselves (Claude Code, Gemini CLI,
 * Codex) are not run here: what is checked is the entry each one reads.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { Client, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { clientNamed, CLIENT_IDS, type ClientId, type ConfigLocation, type Scope } from "../../../../cli/install/clients.js";
import { parseJson, plainValue } from "../../../../cli/install/jsonc.js";
import { explain, runCreate, runIn, runMcpGen, servedAt, startProcess, tempFolder, within } from "../../../cli/scaffold/helpers.js";
import { repoRoot } from "../../../support/schemas.js";
import { readSnippets } from "../scaffold/client-snippets.js";

const NAME = "install-both";
const E2E = { timeout: 240_000 };
let temp: ReturnType<typeof tempFolder>;
let app: string;
let home: string;
let env: NodeJS.ProcessEnv;
const stops: Array<() => Promise<unknown>> = [];

/** Each client's file as a user left it: another server, and a layout of its own (comments where the client reads them). */
const SEEDS: Record<ClientId, string> = {
  "claude-desktop": '{\n    "globalShortcut": "",\n    "mcpServers": {\n        "other": {\n            "command": "npx",\n            "args": ["other-server"]\n        }\n    }\n}\n',
  "claude-code": '{"numStartups":12,"mcpServers":{"other":{"type":"stdio","command":"npx","args":["other-server"],"env":{}}},"projects":{}}',
  cursor: '{\n  "mcpServers": {\n    "other": { "url": "https://other.example/mcp" }\n  }\n}',
  vscode: '// user MCP servers\n{\n\t"servers": {\n\t\t"other": {\n\t\t\t"type": "http",\n\t\t\t"url": "https://other.example/mcp", // hosted\n\t\t},\n\t},\n}\n',
  gemini: '{\n  /* theme first */\n  "theme": "GitHub",\n  "mcpServers": {\n    "other": { "command": "npx", "args": ["other-server"] }\n  }\n}\n',
  codex: '# Codex settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "npx"\nargs = ["other-server"]  # pinned\n\n[profiles.fast]\nmodel = "o4-mini"\n',
};

before(
  () => {
    temp = tempFolder("mcp-gen-install");
    home = join(temp.dir, "home");
    // Every variable a client's path reads, set so that only HOME decides.
    env = { HOME: home, XDG_CONFIG_HOME: "", APPDATA: "", CLAUDE_CONFIG_DIR: "", CODEX_HOME: "" };
    const created = runCreate([NAME, "--yes", "--no-git", "--no-install", "--transport", "both"], temp.dir);
    assert.equal(created.status, 0, explain(created));
    app = join(temp.dir, NAME);
    symlinkSync(join(repoRoot, "node_modules"), join(app, "node_modules"));
    const build = runIn(app, join(app, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], 300_000);
    assert.equal(build.status, 0, explain(build));
    for (const id of CLIENT_IDS) {
      const file = locationOf(id, "user").file;
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, SEEDS[id]);
    }
  },
  { timeout: 600_000 },
);

after(async () => {
  for (const stop of stops.splice(0).reverse()) await within(stop(), 5_000, undefined);
  temp.remove();
});

function locationOf(id: ClientId, scope: Scope): ConfigLocation {
  return clientNamed(id).scopes.find((entry) => entry.scope === scope)!.location({ project: app, platform: process.platform, env });
}

const install = (args: string[]) => runMcpGen(["install", ...args], app, env);

/** The server entry under `key` in a client's file, read as the client reads it. */
function installedEntry(id: ClientId, location: ConfigLocation, key = NAME): Record<string, unknown> {
  const text = readFileSync(location.file, "utf8");
  if (clientNamed(id).format.kind === "toml") return tomlTable(text, `[mcp_servers.${key}]`);
  let value = plainValue(parseJson(text, { comments: true, trailingCommas: true })) as Record<string, unknown>;
  for (const name of [...location.table, key]) value = value[name] as Record<string, unknown>;
  return value;
}

/** The `name = value` lines of one table, whose values install writes as JSON would (an inline table's `=` aside). */
function tomlTable(text: string, header: string): Record<string, unknown> {
  const lines = text.split("\n");
  const start = lines.indexOf(header);
  assert.ok(start >= 0, `${header} in:\n${text}`);
  const entry: Record<string, unknown> = {};
  for (const line of lines.slice(start + 1)) {
    const match = /^([a-z_]+) = (.*)$/.exec(line);
    if (!match) break;
    entry[match[1]!] = JSON.parse(match[2]!.replace(/\s+#[^"]*$/, "").replace(/" = "/g, '": "'));
  }
  return entry;
}

/** Every line of `before` is in `after`, in order, as it was or with a comma added where a member now follows. */
function keptInOrder(before: string, after: string): void {
  const afterLines = after.split("\n");
  let at = 0;
  for (const line of before.split("\n")) {
    while (at < afterLines.length && afterLines[at] !== line && afterLines[at] !== `${line},` && !afterLines[at]!.startsWith(`${line},`)) at++;
    assert.ok(at < afterLines.length, `the line ${JSON.stringify(line)} was lost:\n${after}`);
    at++;
  }
}

async function listsTools(transport: Transport, what: string): Promise<void> {
  const client = new Client({ name: "install-test", version: "0.0.0" });
  stops.push(() => client.close());
  await client.connect(transport);
  assert.equal(client.getServerVersion()?.name, NAME, what);
  assert.ok((await client.listTools()).tools.some((tool) => tool.name === "toggle_greet"), what);
  await client.close();
}

test("install into each of the six clients keeps the other server and the file's layout, and a second run changes nothing", E2E, () => {
  for (const id of CLIENT_IDS) {
    const location = locationOf(id, "user");
    const first = install([id, "--scope", "user"]);
    assert.equal(first.status, 0, `${id}: ${explain(first)}`);
    assert.match(first.stdout, new RegExp(`^added ${NAME} in .* \\(the previous file is .*\\.mcp-gen\\.bak\\)\\n$`), id);
    const written = readFileSync(location.file, "utf8");
    assert.equal(readFileSync(`${location.file}.mcp-gen.bak`, "utf8"), SEEDS[id], `${id}: the backup holds the file as it was`);
    if (id !== "claude-code") keptInOrder(SEEDS[id], written);
    else assert.ok(written.startsWith(SEEDS[id].slice(0, -"}},\"projects\":{}}".length)), written);
    if (id !== "codex") {
      const servers = installedEntry(id, location, "other");
      assert.ok("command" in servers || "url" in servers, `${id}: the other server is still there`);
    } else assert.deepEqual(tomlTable(written, "[mcp_servers.other]"), { command: "npx", args: ["other-server"] });

    const second = install([id, "--scope", "user"]);
    assert.equal(second.status, 0, explain(second));
    assert.match(second.stdout, /is already in .*; nothing changed/);
    assert.equal(readFileSync(location.file, "utf8"), written, `${id}: the second run changed the file`);
  }
});

test("the command each client was given starts the project's server, which the official client lists tools from over stdio", E2E, async () => {
  for (const id of CLIENT_IDS) {
    const entry = installedEntry(id, locationOf(id, "user"));
    assert.equal(entry.command, "node", id);
    const args = entry.args as string[];
    assert.deepEqual(args, [join(app, "dist", "src", "main.js"), "--stdio"], id);
    // Started from outside the project, as a client started from anywhere does.
    await listsTools(new StdioClientTransport({ command: entry.command as string, args, cwd: temp.dir, stderr: "pipe" }), `${id} over stdio`);
  }
});

test("over HTTP each client but Claude Desktop gets the URL and headers under its own keys, where the official client lists tools", E2E, async () => {
  const server = startProcess(process.execPath, [join(app, "dist", "src", "main.js"), "--http"], { cwd: app, env: { ...process.env, PORT: "0" } });
  stops.push(() => server.stop("SIGKILL"));
  const served = await servedAt(server);
  const refused = install(["claude-desktop", "--transport", "http", "--url", served.href]);
  assert.equal(refused.status, 2, explain(refused));
  assert.match(refused.stderr, /^error: Claude Desktop's claude_desktop_config\.json holds stdio servers only; .*\n$/);
  for (const id of CLIENT_IDS.filter((client) => client !== "claude-desktop")) {
    const location = locationOf(id, "user");
    const run = install([id, "--scope", "user", "--transport", "http", "--url", served.href, "--header", "X-Install-Test: yes"]);
    assert.equal(run.status, 0, explain(run));
    assert.match(run.stdout, new RegExp(`^replaced ${NAME} in `), id);
    const entry = installedEntry(id, location);
    const url = (entry.url ?? entry.httpUrl) as string;
    const headers = (entry.headers ?? entry.http_headers) as Record<string, string>;
    assert.equal(url, served.href, id);
    assert.deepEqual(headers, { "x-install-test": "yes" }, id);
    await listsTools(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }), `${id} over HTTP`);
  }
  await server.stop("SIGTERM");
});

test("what install writes is what the project's README shows, the placeholder aside", E2E, () => {
  const readme = readSnippets(readFileSync(join(app, "README.md"), "utf8"));
  const shown = (client: string) => readme.stdio.find((snippet) => snippet.client === client)!;
  const placed = (args: string[]) => args.map((arg) => arg.replace("/path/to/project", app));
  const expectations: Array<[ClientId, Scope, string]> = [
    ["claude-desktop", "user", "mcpServers"],
    ["claude-code", "project", "mcpServers"],
    ["cursor", "project", "mcpServers"],
    ["gemini", "project", "mcpServers"],
    ["vscode", "project", "VS Code"],
    ["codex", "user", "Codex"],
  ];
  for (const [id, scope, client] of expectations) {
    const run = install([id, "--scope", scope, "--transport", "stdio"]);
    assert.equal(run.status, 0, explain(run));
    const entry = installedEntry(id, locationOf(id, scope));
    assert.deepEqual({ command: entry.command, args: entry.args }, { command: shown(client).command, args: placed(shown(client).args) }, id);
  }
  for (const snippet of readme.http) {
    const id = CLIENT_IDS.find((candidate) => clientNamed(candidate).name === snippet.client)!;
    const printed = install([id, "--transport", "http", "--print"]);
    assert.equal(printed.status, 0, explain(printed));
    assert.ok(printed.stdout.includes(snippet.url), `${snippet.client}: ${printed.stdout}`);
  }
});

test("a client file that cannot be read is refused in one line naming it, and left as it was", E2E, () => {
  const file = locationOf("cursor", "project").file;
  mkdirSync(dirname(file), { recursive: true });
  const broken = '{ "mcpServers": { "other": { "command": "x" } }, }';
  writeFileSync(file, broken);
  const run = install(["cursor", "--scope", "project"]);
  assert.equal(run.status, 1, explain(run));
  assert.equal(run.stderr, `error: cannot read ${file}: a trailing comma (this client does not read them) at line 1, column 50; nothing was changed (fix the file, or add the entry by hand: mcp-gen install --print shows it)\n`);
  assert.equal(readFileSync(file, "utf8"), broken);
});

test("the backup of a project-scope client file is ignored by the project's git", E2E, () => {
  assert.equal(runIn(app, "git", ["init", "-q"]).status, 0);
  for (const id of ["claude-code", "cursor", "vscode", "gemini", "codex"] as const) {
    const backup = `${locationOf(id, "project").file.slice(app.length + 1)}.mcp-gen.bak`;
    const check = runIn(app, "git", ["check-ignore", "-q", backup]);
    assert.equal(check.status, 0, `${backup}: ${explain(check)}`);
  }
});

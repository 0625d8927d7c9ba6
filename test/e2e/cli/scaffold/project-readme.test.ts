import assert from "node:assert/strict";
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { explain, npmEnv, runCreate, runIn, servedAt, startProcess, tempFolder, within } from "../../../cli/scaffold/helpers.js";
import { readSnippets, type Snippets } from "./client-snippets.js";

// Three projects, one per transport; only the "both" one installs (from the npm cache), and
// the others borrow its node_modules, which holds every dependency either of them names.
const TRANSPORTS = ["stdio", "http", "both"] as const;
type ProjectTransport = (typeof TRANSPORTS)[number];

let temp: ReturnType<typeof tempFolder>;
const apps = {} as Record<ProjectTransport, string>;
const stops: Array<() => Promise<unknown>> = [];

before(
  () => {
    temp = tempFolder("mcp-gen-readme");
    for (const transport of ["both", "stdio", "http"] as const) {
      const name = `readme-${transport}`;
      const install = transport === "both" ? [] : ["--no-install"];
      const created = runCreate([name, "--yes", "--no-git", "--transport", transport, ...install], temp.dir);
      assert.equal(created.status, 0, explain(created));
      apps[transport] = join(temp.dir, name);
      if (transport !== "both") symlinkSync(join(apps.both, "node_modules"), join(apps[transport], "node_modules"));
      const build = runIn(apps[transport], join(apps[transport], "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], 300_000);
      assert.equal(build.status, 0, explain(build));
    }
  },
  { timeout: 600_000 },
);

after(async () => {
  for (const stop of stops.splice(0).reverse()) await within(stop(), 5_000, undefined);
  temp.remove();
});

const E2E = { timeout: 240_000 };
/** What the README tells the reader to replace with the project's folder. */
const PLACEHOLDER = "/path/to/project";
const CLIENTS = ["Claude Desktop", "Claude Code", "VS Code", "Cursor", "Gemini CLI", "Codex"];
const DEFAULT_URL = "http://127.0.0.1:3000/mcp";

function snippetsOf(transport: ProjectTransport): Snippets {
  return readSnippets(readFileSync(join(apps[transport], "README.md"), "utf8"));
}

/** Connects the official client (its default negotiation: an `initialize`) and checks it reached this project's server. */
async function initializes(transport: Transport, name: string, what: string): Promise<void> {
  const client = new Client({ name: "readme-snippet", version: "0.0.0" });
  stops.push(() => client.close());
  await client.connect(transport);
  assert.equal(client.getServerVersion()?.name, name, what);
  assert.ok((await client.listTools()).tools.some((tool) => tool.name === "toggle_greet"), what);
  await client.close();
}

for (const transport of TRANSPORTS) {
  const stdio = transport !== "http";
  const http = transport !== "stdio";

  test(`a ${transport} project's README names every client, with its config file, and keys each entry by the package name`, E2E, () => {
    const { section, stdio: started, http: connected } = snippetsOf(transport);
    for (const client of CLIENTS) assert.ok(section.includes(client), `${client} in:\n${section}`);
    for (const file of ["claude_desktop_config.json", ".mcp.json", ".vscode/mcp.json", ".cursor/mcp.json", ".gemini/settings.json", "~/.codex/config.toml"]) {
      assert.ok(section.includes(file), `${file} in:\n${section}`);
    }
    // stdio: the mcpServers entry (Claude Desktop, Claude Code, Cursor, Gemini CLI), VS Code, Codex, and Claude Code's command.
    assert.deepEqual(started.map((snippet) => snippet.client), stdio ? ["mcpServers", "VS Code", "Codex", "Claude Code"] : []);
    assert.deepEqual(connected.map((snippet) => snippet.client), http ? ["Claude Code", "Claude Code", "Cursor", "VS Code", "Gemini CLI", "Codex"] : []);
    const name = `readme-${transport}`;
    for (const snippet of [...started, ...connected]) assert.ok(snippet.key === name || snippet.key === "<key>", JSON.stringify(snippet));
  });

  if (stdio) {
    test(`each stdio snippet in a ${transport} project's README starts a server the official client initializes`, E2E, async () => {
      const app = apps[transport];
      const snippets = snippetsOf(transport).stdio;
      assert.equal(snippets.length, 4, "the mcpServers entry, VS Code's, Codex's and Claude Code's command");
      for (const snippet of snippets) {
        // VS Code starts it in the workspace folder, which it puts for ${workspaceFolder};
        // the others from wherever they were started, here a folder outside the project.
        const inWorkspace = snippet.args.some((arg) => arg.includes("${workspaceFolder}"));
        const args = snippet.args.map((arg) => arg.replace("${workspaceFolder}", app).replace(PLACEHOLDER, app));
        assert.ok(snippet.args.some((arg) => arg.startsWith(PLACEHOLDER) || arg.startsWith("${workspaceFolder}/")), JSON.stringify(snippet));
        const started = new StdioClientTransport({ command: snippet.command, args, cwd: inWorkspace ? app : temp.dir, stderr: "pipe" });
        await initializes(started, `readme-${transport}`, `${snippet.client}: ${snippet.command} ${args.join(" ")}`);
      }
    });
  }

  if (http) {
    test(`each HTTP snippet in a ${transport} project's README names the URL npm start serves, where the official client initializes`, E2E, async () => {
      const app = apps[transport];
      const snippets = snippetsOf(transport).http;
      assert.equal(snippets.length, 6, "Claude Code's command, and Claude Code's, Cursor's, VS Code's, Gemini CLI's and Codex's entries");
      // Started as the README says, on a port the kernel picks rather than 3000, which another
      // process on this machine may hold; every other part of the URL must be the snippet's.
      const server = startProcess("npm", ["start"], { cwd: app, env: { ...npmEnv, PORT: "0" } });
      stops.push(() => server.stop("SIGKILL"));
      const served = await servedAt(server);
      for (const snippet of snippets) {
        assert.equal(snippet.url, DEFAULT_URL, snippet.client);
        const url = new URL(snippet.url);
        url.port = served.port;
        assert.equal(url.href, served.href, snippet.client);
        await initializes(new StreamableHTTPClientTransport(url), `readme-${transport}`, `${snippet.client}: ${snippet.url}`);
      }
      await server.stop("SIGTERM");
    });
  }
}

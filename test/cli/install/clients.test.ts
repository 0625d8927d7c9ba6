/**
 * install/clients.ts: where each client keeps its servers, per scope, platform and
 * environment (HOME, USERPROFILE, XDG_CONFIG_HOME, APPDATA, CLAUDE_CONFIG_DIR, CODEX_HOME),
 * and the entry each reads. README's "mcp-gen install" section lists the same paths.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { CLIENTS, clientNamed, serverKey, type ClientId, type Scope, type Surroundings } from "../../../cli/install/clients.js";

function fileOf(id: ClientId, scope: Scope, around: Partial<Surroundings> & { env: NodeJS.ProcessEnv }): string {
  const entry = clientNamed(id).scopes.find((candidate) => candidate.scope === scope)!;
  return entry.location({ project: "/work/app", platform: "linux", ...around }).file;
}

test("each client's user files follow HOME and XDG_CONFIG_HOME on Linux, and its project files lie in the project", () => {
  const env = { HOME: "/home/ada" };
  assert.equal(fileOf("claude-desktop", "user", { env }), "/home/ada/.config/Claude/claude_desktop_config.json");
  assert.equal(fileOf("claude-desktop", "user", { env: { ...env, XDG_CONFIG_HOME: "/xdg" } }), "/xdg/Claude/claude_desktop_config.json");
  assert.equal(fileOf("vscode", "user", { env: { ...env, XDG_CONFIG_HOME: "/xdg" } }), "/xdg/Code/User/mcp.json");
  assert.equal(fileOf("vscode", "project", { env }), "/work/app/.vscode/mcp.json");
  assert.equal(fileOf("claude-code", "project", { env }), "/work/app/.mcp.json");
  assert.equal(fileOf("claude-code", "user", { env }), "/home/ada/.claude.json");
  assert.equal(fileOf("claude-code", "user", { env: { ...env, CLAUDE_CONFIG_DIR: "/cc" } }), "/cc/.claude.json");
  assert.equal(fileOf("cursor", "project", { env }), "/work/app/.cursor/mcp.json");
  assert.equal(fileOf("cursor", "user", { env }), "/home/ada/.cursor/mcp.json");
  assert.equal(fileOf("gemini", "project", { env }), "/work/app/.gemini/settings.json");
  assert.equal(fileOf("gemini", "user", { env }), "/home/ada/.gemini/settings.json");
  assert.equal(fileOf("codex", "user", { env }), "/home/ada/.codex/config.toml");
  assert.equal(fileOf("codex", "user", { env: { ...env, CODEX_HOME: "/codex" } }), "/codex/config.toml");
  assert.equal(fileOf("codex", "project", { env }), "/work/app/.codex/config.toml");
});

test("desktop apps keep their settings under Application Support on macOS and APPDATA on Windows", () => {
  const mac = { platform: "darwin" as const, env: { HOME: "/Users/ada" } };
  assert.equal(fileOf("claude-desktop", "user", mac), "/Users/ada/Library/Application Support/Claude/claude_desktop_config.json");
  assert.equal(fileOf("vscode", "user", mac), "/Users/ada/Library/Application Support/Code/User/mcp.json");
  const windows = { platform: "win32" as const, project: "C:\\work\\app", env: { USERPROFILE: "C:\\Users\\ada", APPDATA: "D:\\Roaming" } };
  assert.equal(fileOf("claude-desktop", "user", windows), "D:\\Roaming\\Claude\\claude_desktop_config.json");
  assert.equal(fileOf("vscode", "user", windows), "D:\\Roaming\\Code\\User\\mcp.json");
  assert.equal(fileOf("vscode", "user", { ...windows, env: { USERPROFILE: "C:\\Users\\ada" } }), "C:\\Users\\ada\\AppData\\Roaming\\Code\\User\\mcp.json");
  assert.equal(fileOf("codex", "user", windows), "C:\\Users\\ada\\.codex\\config.toml");
  assert.equal(fileOf("cursor", "project", windows), "C:\\work\\app\\.cursor\\mcp.json");
});

test("Claude Code's local scope keeps the server under the project's path in its own file", () => {
  const local = clientNamed("claude-code").scopes.find((entry) => entry.scope === "local")!;
  assert.deepEqual(local.location({ project: "/work/app", platform: "linux", env: { HOME: "/home/ada" } }), {
    file: "/home/ada/.claude.json",
    table: ["projects", "/work/app", "mcpServers"],
  });
});

test("each client reads a stdio server as a command and args, and an HTTP server under its own URL key, headers only when given", () => {
  const stdio = { transport: "stdio" as const, command: "node", args: ["main.js"] };
  const http = { transport: "http" as const, url: "http://127.0.0.1:3000/mcp", headers: {} };
  const withHeader = { ...http, headers: { authorization: "Bearer t" } };
  const seen = Object.fromEntries(CLIENTS.map((client) => [client.id, [client.entry(stdio), client.entry(http), client.entry(withHeader)]]));
  assert.deepEqual(seen, {
    "claude-desktop": [{ command: "node", args: ["main.js"] }, undefined, undefined],
    "claude-code": [{ command: "node", args: ["main.js"] }, { type: "http", url: http.url }, { type: "http", url: http.url, headers: withHeader.headers }],
    cursor: [{ command: "node", args: ["main.js"] }, { url: http.url }, { url: http.url, headers: withHeader.headers }],
    vscode: [{ type: "stdio", command: "node", args: ["main.js"] }, { type: "http", url: http.url }, { type: "http", url: http.url, headers: withHeader.headers }],
    gemini: [{ command: "node", args: ["main.js"] }, { httpUrl: http.url }, { httpUrl: http.url, headers: withHeader.headers }],
    codex: [{ command: "node", args: ["main.js"] }, { url: http.url }, { url: http.url, http_headers: withHeader.headers }],
  });
});

test("Codex lists the server under the package name with what it refuses in a name replaced, and a --name it would refuse is refused", () => {
  const codex = clientNamed("codex");
  assert.equal(serverKey(codex, "my.server~2"), "my_server_2");
  assert.equal(serverKey(codex, "my-server_2"), "my-server_2");
  assert.equal(serverKey(clientNamed("cursor"), "my.server~2"), "my.server~2");
  assert.equal(serverKey(codex, "my.server", "mine"), "mine");
  assert.throws(
    () => serverKey(codex, "app", "my server"),
    (error) => error instanceof CliError && error.message === 'Codex refuses the server name "my server"' && error.hint === "use letters, digits, - and _ only, e.g. --name my_server",
  );
  assert.throws(() => serverKey(clientNamed("vscode"), "app", " "), /--name must not be empty/);
});

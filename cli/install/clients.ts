/**
 * The MCP clients `mcp-gen install` knows, one row each: where the client keeps its
 * servers (per scope and platform), the file's format, and the entry it reads for a stdio
 * or an HTTP server. The scaffold's README renders its "Connect a client" snippets from
 * these rows too, so the README and install cannot disagree.
 */
import { homedir } from "node:os";
import { posix, win32 } from "node:path";
import { CliError } from "../errors.js";
import type { JsonDialect } from "./jsonc.js";

export type ClientId = "claude-desktop" | "claude-code" | "cursor" | "vscode" | "gemini" | "codex";
export type Scope = "project" | "user" | "local";

/** How a server is reached: a command the client starts, or a URL it connects to. */
export type Launch = { transport: "stdio"; command: string; args: string[] } | { transport: "http"; url: string; headers: Record<string, string> };

/** What a file's path depends on; `project` is the project's absolute folder. */
export interface Surroundings {
  project: string;
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
}

/** A configuration file and the keys, from its top, of the object that holds the servers. */
export interface ConfigLocation {
  file: string;
  table: string[];
}

export type ConfigFormat = { kind: "json"; dialect: JsonDialect } | { kind: "toml" };

export interface ClientSpec {
  id: ClientId;
  name: string;
  format: ConfigFormat;
  /** The scopes the client has, the first its default, each with where it keeps servers. */
  scopes: ReadonlyArray<{ scope: Scope; location: (around: Surroundings) => ConfigLocation; readme: string }>;
  /** The entry for a server; undefined when the client cannot take this transport (see `refusal`). */
  entry: (launch: Launch) => Record<string, unknown> | undefined;
  /** Why an HTTP server cannot go into this client's file, and what to do instead. */
  httpRefusal?: string;
  /** How the client names the project folder inside its project-scope file, where it has a variable for it. */
  projectVariable?: string;
  /** The server names the client accepts, where it refuses others. */
  keyPattern?: RegExp;
}

const PLAIN_JSON: ConfigFormat = { kind: "json", dialect: { comments: false, trailingCommas: false } };

/** `headers` when there are any, else nothing: an empty object would only be noise in the file. */
function withHeaders(name: string, headers: Record<string, string>): Record<string, unknown> {
  return Object.keys(headers).length > 0 ? { [name]: headers } : {};
}

function commandEntry(launch: Launch): Record<string, unknown> | undefined {
  return launch.transport === "stdio" ? { command: launch.command, args: launch.args } : undefined;
}

export const CLIENTS: readonly ClientSpec[] = [
  {
    id: "claude-desktop",
    name: "Claude Desktop",
    format: PLAIN_JSON,
    scopes: [{ scope: "user", location: (around) => ({ file: joinFor(around, appConfigFolder(around), "Claude", "claude_desktop_config.json"), table: ["mcpServers"] }), readme: "claude_desktop_config.json" }],
    entry: commandEntry,
    httpRefusal:
      "Claude Desktop's claude_desktop_config.json holds stdio servers only; add an HTTP server as a custom connector (Settings, Connectors), which needs a public HTTPS URL",
  },
  {
    id: "claude-code",
    name: "Claude Code",
    format: PLAIN_JSON,
    scopes: [
      { scope: "project", location: (around) => ({ file: joinFor(around, around.project, ".mcp.json"), table: ["mcpServers"] }), readme: ".mcp.json" },
      { scope: "user", location: (around) => ({ file: claudeCodeUserFile(around), table: ["mcpServers"] }), readme: "~/.claude.json" },
      { scope: "local", location: (around) => ({ file: claudeCodeUserFile(around), table: ["projects", around.project, "mcpServers"] }), readme: "~/.claude.json" },
    ],
    entry: (launch) => commandEntry(launch) ?? (launch.transport === "http" ? { type: "http", url: launch.url, ...withHeaders("headers", launch.headers) } : undefined),
  },
  {
    id: "cursor",
    name: "Cursor",
    format: PLAIN_JSON,
    scopes: [
      { scope: "project", location: (around) => ({ file: joinFor(around, around.project, ".cursor", "mcp.json"), table: ["mcpServers"] }), readme: ".cursor/mcp.json" },
      { scope: "user", location: (around) => ({ file: joinFor(around, home(around), ".cursor", "mcp.json"), table: ["mcpServers"] }), readme: "~/.cursor/mcp.json" },
    ],
    entry: (launch) => commandEntry(launch) ?? (launch.transport === "http" ? { url: launch.url, ...withHeaders("headers", launch.headers) } : undefined),
  },
  {
    id: "vscode",
    name: "VS Code",
    // VS Code reads mcp.json as JSONC: comments and trailing commas.
    format: { kind: "json", dialect: { comments: true, trailingCommas: true } },
    scopes: [
      { scope: "project", location: (around) => ({ file: joinFor(around, around.project, ".vscode", "mcp.json"), table: ["servers"] }), readme: ".vscode/mcp.json" },
      { scope: "user", location: (around) => ({ file: joinFor(around, appConfigFolder(around), "Code", "User", "mcp.json"), table: ["servers"] }), readme: "mcp.json in the user profile" },
    ],
    entry: (launch) =>
      launch.transport === "stdio"
        ? { type: "stdio", command: launch.command, args: launch.args }
        : { type: "http", url: launch.url, ...withHeaders("headers", launch.headers) },
    projectVariable: "${workspaceFolder}",
  },
  {
    id: "gemini",
    name: "Gemini CLI",
    // Gemini CLI strips comments from settings.json before parsing it, and no more.
    format: { kind: "json", dialect: { comments: true, trailingCommas: false } },
    scopes: [
      { scope: "project", location: (around) => ({ file: joinFor(around, around.project, ".gemini", "settings.json"), table: ["mcpServers"] }), readme: ".gemini/settings.json" },
      { scope: "user", location: (around) => ({ file: joinFor(around, home(around), ".gemini", "settings.json"), table: ["mcpServers"] }), readme: "~/.gemini/settings.json" },
    ],
    // `httpUrl` is Streamable HTTP; Gemini CLI reads `url` as the older HTTP+SSE transport.
    entry: (launch) => commandEntry(launch) ?? (launch.transport === "http" ? { httpUrl: launch.url, ...withHeaders("headers", launch.headers) } : undefined),
  },
  {
    id: "codex",
    name: "Codex",
    format: { kind: "toml" },
    scopes: [
      { scope: "user", location: (around) => ({ file: joinFor(around, codexHome(around), "config.toml"), table: ["mcp_servers"] }), readme: "~/.codex/config.toml" },
      { scope: "project", location: (around) => ({ file: joinFor(around, around.project, ".codex", "config.toml"), table: ["mcp_servers"] }), readme: ".codex/config.toml" },
    ],
    // Codex refuses to start a server whose name is not of these characters.
    keyPattern: /^[A-Za-z0-9_-]+$/,
    // Codex sends `http_headers` as they are; it ignores a `headers` key.
    entry: (launch) => commandEntry(launch) ?? (launch.transport === "http" ? { url: launch.url, ...withHeaders("http_headers", launch.headers) } : undefined),
  },
];

export const CLIENT_IDS = CLIENTS.map((client) => client.id);

/**
 * The name the client lists the server under: `given` as it is (refused when the client
 * would refuse it), else the package name with each character the client refuses in a
 * name replaced by `_` (`my.server` is `my_server` for Codex).
 */
export function serverKey(client: ClientSpec, packageName: string, given?: string): string {
  if (given !== undefined) {
    if (given.trim() === "") throw new CliError("--name must not be empty", { hint: "give the name the client should list, e.g. --name my-server", exitCode: 2 });
    if (client.keyPattern !== undefined && !client.keyPattern.test(given)) {
      throw new CliError(`${client.name} refuses the server name ${JSON.stringify(given)}`, { hint: `use letters, digits, - and _ only, e.g. --name ${safeKey(given)}`, exitCode: 2 });
    }
    return given;
  }
  return client.keyPattern === undefined || client.keyPattern.test(packageName) ? packageName : safeKey(packageName);
}

function safeKey(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

export function clientNamed(id: ClientId): ClientSpec {
  return CLIENTS.find((client) => client.id === id)!;
}

/** The platform's path functions, so Windows paths are built right when tested elsewhere. */
function pathFor(around: Surroundings): typeof posix {
  return around.platform === "win32" ? win32 : posix;
}

function joinFor(around: Surroundings, ...parts: string[]): string {
  return pathFor(around).join(...parts);
}

/** The user's home: HOME (USERPROFILE on Windows) when set, else what the system says. */
function home(around: Surroundings): string {
  const fromEnv = around.platform === "win32" ? around.env.USERPROFILE : around.env.HOME;
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : homedir();
}

/** Where desktop apps keep their settings: Application Support on macOS, APPDATA on Windows, XDG_CONFIG_HOME (else ~/.config) elsewhere. */
function appConfigFolder(around: Surroundings): string {
  if (around.platform === "darwin") return joinFor(around, home(around), "Library", "Application Support");
  if (around.platform === "win32") return nonEmpty(around.env.APPDATA) ?? joinFor(around, home(around), "AppData", "Roaming");
  return nonEmpty(around.env.XDG_CONFIG_HOME) ?? joinFor(around, home(around), ".config");
}

/** Claude Code's own file: `.claude.json` in CLAUDE_CONFIG_DIR when set, else in the home folder. */
function claudeCodeUserFile(around: Surroundings): string {
  return joinFor(around, nonEmpty(around.env.CLAUDE_CONFIG_DIR) ?? home(around), ".claude.json");
}

/** Codex's folder: CODEX_HOME when set, else ~/.codex. */
function codexHome(around: Surroundings): string {
  return nonEmpty(around.env.CODEX_HOME) ?? joinFor(around, home(around), ".codex");
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

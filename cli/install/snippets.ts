/**
 * Configuration snippets as text, from the client table: what `mcp-gen install --print`
 * shows, and the scaffold README's "Connect a client" section (its JSON and TOML blocks,
 * Claude Code's command lines and the HTTP table), so both say what install writes.
 */
import { CLIENTS, serverKey, type ClientSpec, type Launch } from "./clients.js";
import { inlineJson, renderJson } from "./json-merge.js";
import { DEFAULT_URL, httpLaunch, stdioLaunch } from "./project-server.js";
import { renderTomlTable, type TomlEntry } from "./toml-merge.js";

/** What the README tells the reader to replace with the project's folder. */
export const PROJECT_PLACEHOLDER = "/path/to/project";

export interface Snippet {
  language: "json" | "toml";
  text: string;
}

/** A whole file holding just `entry` under `key` in `table`, as the client's format writes it. */
export function fileSnippet(client: ClientSpec, table: readonly string[], key: string, entry: Record<string, unknown>): Snippet {
  if (client.format.kind === "toml") return { language: "toml", text: renderTomlTable(table[0]!, key, entry as TomlEntry) };
  const value = [...table, key].reduceRight<unknown>((inner, name) => ({ [name]: inner }), entry);
  return { language: "json", text: renderJson(value, "  ", "") };
}

export interface ConnectView {
  /** stdio blocks, clients that take the same text sharing one. */
  stdio: Array<{ intro: string; language: string; body: string }>;
  claudeStdio: string;
  claudeHttp: string;
  /** The HTTP entries as a markdown table, laid out as prettier lays it out. */
  httpTable: string;
}

/** The README's snippets for a project named `key` that serves stdio and/or HTTP. */
export function connectView(key: string, serves: { stdio: boolean; http: boolean }): ConnectView {
  const both = serves.stdio && serves.http;
  const groups = new Map<string, { clients: ClientSpec[]; snippet: Snippet }>();
  for (const client of CLIENTS) {
    const root = client.projectVariable !== undefined && client.scopes[0]!.scope === "project" ? client.projectVariable : PROJECT_PLACEHOLDER;
    const snippet = fileSnippet(client, tableOf(client), serverKey(client, key), client.entry(stdioLaunch(`${root}/dist/src/main.js`, both))!);
    const group = groups.get(snippet.text) ?? { clients: [], snippet };
    group.clients.push(client);
    groups.set(snippet.text, group);
  }
  const stdio = [...groups.values()].map(({ clients, snippet }) => ({ intro: introOf(clients), language: snippet.language, body: snippet.text }));
  const stdioLine = stdioLaunch(`${PROJECT_PLACEHOLDER}/dist/src/main.js`, both);
  return { stdio, claudeStdio: claudeAddLine(key, stdioLine), claudeHttp: claudeAddLine(key, httpLaunch()), httpTable: httpTable() };
}

/** `claude mcp add` for the launch: Claude Code's own command for its default (local) scope. */
export function claudeAddLine(key: string, launch: Launch): string {
  if (launch.transport === "http") {
    const headers = Object.entries(launch.headers).flatMap(([name, value]) => ["--header", `${name}: ${value}`]);
    return ["claude", "mcp", "add", "--transport", "http", ...headers, key, launch.url].map(shellWord).join(" ");
  }
  return ["claude", "mcp", "add", "--transport", "stdio", key, "--", launch.command, ...launch.args].map(shellWord).join(" ");
}

/** A word for a POSIX shell: as it is when it has nothing the shell would read, else single-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** "Claude Desktop (`file`), Cursor (`file`) and Gemini CLI (`file`) take the same entry", or one client and its file. */
function introOf(clients: readonly ClientSpec[]): string {
  const named = clients.map((client) => {
    const note = client.projectVariable !== undefined ? ` in this folder, which fills in \`${client.projectVariable}\` itself` : "";
    return `${client.name} (\`${client.scopes[0]!.readme}\`${note})`;
  });
  if (named.length === 1) return named[0]!;
  return `${named.slice(0, -1).join(", ")} and ${named.at(-1)} take the same entry`;
}

function tableOf(client: ClientSpec): string[] {
  return client.scopes[0]!.location({ project: PROJECT_PLACEHOLDER, platform: "linux", env: {} }).table;
}

/** The clients that take an HTTP server, one row each: the file, the table, the entry for the default URL. */
function httpTable(): string {
  const rows: string[][] = [];
  for (const client of CLIENTS) {
    const entry = client.entry(httpLaunch(DEFAULT_URL));
    if (entry === undefined) continue;
    const table = tableOf(client);
    const where = client.format.kind === "toml" ? `\`[${table.join(".")}.<key>]\`` : `\`${table.join(".")}\``;
    const shown = client.format.kind === "toml" ? renderTomlTable(table[0]!, "key", entry as TomlEntry).split("\n").slice(1).join("; ") : inlineJson(entry);
    rows.push([client.name, `\`${client.scopes[0]!.readme}\`, ${where}`, `\`${shown}\``]);
  }
  return markdownTable(["client", "file, under", "entry"], rows);
}

/** A markdown table with its cells padded to their column's width, as prettier writes one. */
function markdownTable(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((title, column) => Math.max(3, title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}

/**
 * Reads the "Connect a client" section of a scaffolded project's README into what each
 * client would do with it: the command it starts (stdio) or the URL it connects to (HTTP).
 * Strict on purpose: a snippet in a shape the clients do not read fails here.
 */

export interface StdioSnippet {
  client: string;
  key: string;
  command: string;
  args: string[];
}

export interface HttpSnippet {
  client: string;
  key: string;
  url: string;
}

export interface Snippets {
  section: string;
  stdio: StdioSnippet[];
  http: HttpSnippet[];
}

/** The README's "Connect a client" section, up to the next level-2 heading ("" if it has none). */
export function connectSection(readme: string): string {
  const start = readme.indexOf("\n## Connect a client\n");
  if (start < 0) return "";
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

export function readSnippets(readme: string): Snippets {
  const section = connectSection(readme);
  const snippets: Snippets = { section, stdio: [], http: [] };
  for (const [, language, body] of section.matchAll(/^```(\w+)\n([\s\S]*?)\n```$/gm)) {
    if (language === "json") readJsonBlock(body!, snippets);
    else if (language === "sh") for (const line of body!.split("\n")) readClaudeAdd(line, snippets);
    else if (language === "toml") readCodexTable(body!, snippets);
    else throw new Error(`an unexpected ${language} block in the section`);
  }
  // The HTTP table's rows, past its header and separator.
  for (const row of section.split("\n").filter((line) => /^\| (?!client |-)/.test(line))) {
    readTableRow(row, snippets);
  }
  return snippets;
}

/** A JSON config file: `servers` (VS Code, each entry typed) or `mcpServers` (the others). */
function readJsonBlock(body: string, snippets: Snippets): void {
  const config = JSON.parse(body) as Record<string, Record<string, Record<string, unknown>>>;
  const [table, ...others] = Object.keys(config);
  if (others.length > 0 || (table !== "servers" && table !== "mcpServers")) throw new Error(`unexpected top-level keys in ${body}`);
  for (const [key, entry] of Object.entries(config[table]!)) {
    if (table === "servers" && entry.type !== "stdio") throw new Error(`a VS Code stdio entry without "type": "stdio": ${body}`);
    snippets.stdio.push({ client: table === "servers" ? "VS Code" : "mcpServers", key, ...commandOf(entry) });
  }
}

function commandOf(entry: Record<string, unknown>): { command: string; args: string[] } {
  const { command, args } = entry;
  if (typeof command !== "string" || !Array.isArray(args) || !args.every((arg) => typeof arg === "string")) {
    throw new Error(`not a command with string args: ${JSON.stringify(entry)}`);
  }
  return { command, args };
}

/** `claude mcp add --transport <stdio|http> <key> (-- <command> <args...> | <url>)`, split on spaces as a shell would (no quotes used). */
function readClaudeAdd(line: string, snippets: Snippets): void {
  if (line.trim() === "") return;
  if (/["'\\$`]/.test(line)) throw new Error(`a command line that needs more than splitting on spaces: ${line}`);
  const argv = line.trim().split(/ +/);
  const [claude, mcp, add, option, transport, key, ...rest] = argv;
  if (claude !== "claude" || mcp !== "mcp" || add !== "add" || option !== "--transport") throw new Error(`not a claude mcp add line: ${line}`);
  if (transport === "stdio" && rest[0] === "--" && rest.length >= 2) {
    snippets.stdio.push({ client: "Claude Code", key: key!, command: rest[1]!, args: rest.slice(2) });
  } else if (transport === "http" && rest.length === 1) {
    snippets.http.push({ client: "Claude Code", key: key!, url: rest[0]! });
  } else throw new Error(`an unexpected claude mcp add line: ${line}`);
}

/**
 * Codex's config.toml, the subset the README uses: one `[mcp_servers.<key>]` header (the
 * key bare, or a basic string), then `name = value` lines whose values are basic strings or
 * arrays of them (written the same in TOML and JSON).
 */
function readCodexTable(body: string, snippets: Snippets): void {
  const [header, ...lines] = body.split("\n");
  const heading = /^\[mcp_servers\.([A-Za-z0-9_-]+|"[^"\\]*")\]$/.exec(header!);
  if (!heading) throw new Error(`not an [mcp_servers.<key>] header: ${header}`);
  const key = heading[1]!.startsWith('"') ? (JSON.parse(heading[1]!) as string) : heading[1]!;
  const entry = Object.fromEntries(lines.map(tomlAssignment));
  snippets.stdio.push({ client: "Codex", key, ...commandOf(entry) });
}

function tomlAssignment(line: string): [string, unknown] {
  const match = /^([a-z_]+) = ("[^"\\]*"|\[(?:"[^"\\]*"(?:, "[^"\\]*")*)?\])$/.exec(line);
  if (!match) throw new Error(`not a TOML line of the subset: ${line}`);
  return [match[1]!, JSON.parse(match[2]!)];
}

/** A row of the HTTP table: client, file and table, and the entry under the project's key. */
function readTableRow(row: string, snippets: Snippets): void {
  const [client, where, entry] = row.split("|").slice(1, -1).map((cell) => cell.trim());
  const code = /^`(.*)`$/.exec(entry ?? "")?.[1];
  if (client === undefined || where === undefined || code === undefined) throw new Error(`an unexpected row: ${row}`);
  if (client === "Codex") {
    if (!where.includes("`[mcp_servers.<key>]`")) throw new Error(`Codex's row names no [mcp_servers.<key>] table: ${row}`);
    const [name, url] = tomlAssignment(code);
    if (name !== "url" || typeof url !== "string") throw new Error(`Codex's HTTP entry is not url = "...": ${row}`);
    snippets.http.push({ client, key: "<key>", url });
    return;
  }
  const parsed = JSON.parse(code) as Record<string, unknown>;
  const field = { "Claude Code": "url", "VS Code": "url", Cursor: "url", "Gemini CLI": "httpUrl" }[client];
  if (field === undefined || typeof parsed[field] !== "string") throw new Error(`no ${field ?? "known client"} URL in ${row}`);
  if ((client === "VS Code" || client === "Claude Code") && parsed.type !== "http") throw new Error(`${client}'s HTTP entry lacks "type": "http": ${row}`);
  snippets.http.push({ client, key: "<key>", url: parsed[field] as string });
}

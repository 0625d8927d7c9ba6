/**
 * Puts one server entry into a TOML configuration (Codex's `[mcp_servers.<key>]`) by
 * splicing text: the entry's table, with its sub-tables, is replaced where it stands, or a
 * new table goes after the last `[mcp_servers.*]` one (at the end of the file when there is
 * none). Every other line is kept as it was.
 */
import type { MergedText } from "./json-merge.js";
import { readToml, tomlKey, tomlString, TomlSyntaxError, type TomlStatement } from "./toml.js";

/** A server entry as TOML holds it: strings, lists of strings, and string tables (headers, environment). */
export type TomlEntry = Record<string, string | readonly string[] | Readonly<Record<string, string>>>;

/** `text` with the table `[<table>.<key>]` holding `entry`; an entry written the same way leaves the text as it is. */
export function mergeTomlEntry(text: string, table: string, key: string, entry: TomlEntry): MergedText {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const block = renderTomlTable(table, key, entry).split("\n").join(eol);
  const statements = readToml(text);
  const target = [table, key];
  refuseOtherForms(statements, target);
  const headerIndex = statements.findIndex((statement) => statement.kind === "table" && samePath(statement.path, target));
  if (headerIndex >= 0) {
    let last = headerIndex;
    while (last + 1 < statements.length && startsWith(statements[last + 1]!.path, target)) last++;
    const start = statements[headerIndex]!.start;
    const end = statements[last]!.end;
    if (normalized(text.slice(start, end)) === normalized(block)) return { text, change: "unchanged" };
    return { text: text.slice(0, start) + block + text.slice(end), change: "replaced" };
  }
  const after = lastStatementUnder(statements, table);
  if (after !== undefined) return { text: `${text.slice(0, after.end)}${eol}${eol}${block}${text.slice(after.end)}`, change: "added" };
  const body = text.replace(/[ \t\r\n]+$/, "");
  return { text: body === "" || body === "\uFEFF" ? `${body}${block}${eol}` : `${body}${eol}${eol}${block}${eol}`, change: "added" };
}

/** The table as install writes it, lines joined by `\n`. */
export function renderTomlTable(table: string, key: string, entry: TomlEntry): string {
  const lines = [`[${tomlKey(table)}.${tomlKey(key)}]`];
  for (const [name, value] of Object.entries(entry)) lines.push(`${tomlKey(name)} = ${tomlValue(value)}`);
  return lines.join("\n");
}

function tomlValue(value: string | readonly string[] | Readonly<Record<string, string>>): string {
  if (typeof value === "string") return tomlString(value);
  if (Array.isArray(value)) return `[${value.map(tomlString).join(", ")}]`;
  const members = Object.entries(value).map(([name, item]) => `${tomlString(name)} = ${tomlString(item)}`);
  return members.length === 0 ? "{}" : `{ ${members.join(", ")} }`;
}

/**
 * Refuses a file that defines the entry, or the whole table, in a form this edit would
 * break: `mcp_servers = { ... }` or a dotted `mcp_servers.<key>.command = ...` outside the
 * entry's own table. Adding a header beside those would make the file invalid TOML.
 */
function refuseOtherForms(statements: readonly TomlStatement[], target: readonly string[]): void {
  let header: readonly string[] = [];
  for (const statement of statements) {
    if (statement.kind !== "pair") header = statement.path;
    const inOwnTable = startsWith(header, target) && statement.kind !== "array-table";
    const definesTarget = startsWith(statement.path, target) && !inOwnTable;
    const wholeTableInline = statement.kind === "pair" && startsWith(target, statement.path);
    const arrayOfTables = statement.kind === "array-table" && startsWith(target, statement.path);
    if (definesTarget || wholeTableInline || arrayOfTables) {
      throw new TomlSyntaxError(`"${statement.path.join(".")}" is written in a form install does not edit; move it into a [${target.map(tomlKey).join(".")}] table`, statement.start);
    }
  }
}

/** The last statement of the tables under `table` (its own header included), if the file has any. */
function lastStatementUnder(statements: readonly TomlStatement[], table: string): TomlStatement | undefined {
  let header: readonly string[] = [];
  let last: TomlStatement | undefined;
  for (const statement of statements) {
    if (statement.kind !== "pair") header = statement.path;
    if (header[0] === table) last = statement;
  }
  return last;
}

function samePath(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && startsWith(left, right);
}

/** True when `path` begins with every part of `prefix`. */
function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((part, index) => path[index] === part);
}

/** Text compared line by line, without line-ending or trailing-space differences. */
function normalized(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .join("\n");
}

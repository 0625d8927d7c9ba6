/**
 * The files `server-json` reads and writes: the project's own sources (src/, tests left
 * out), an existing server.json and whether this command wrote it, and package.json with
 * `mcpName` set, edited in place so that the rest of the file keeps its formatting.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { CliError } from "../../errors.js";
import { OWN_TOOL, PUBLISHER_META } from "./derive.js";
import type { PackageJson } from "./identity.js";
import type { SourceText } from "./source-reads.js";

export const SERVER_JSON_FILE = "server.json";
export const SOURCE_FOLDER = "src";
/** Source files read at most: a project's own code, never a vendored tree, is expected under src/. */
export const MAX_SOURCE_FILES = 2000;

/** The project's TypeScript and JavaScript under src/, tests and declarations left out. */
export function readProjectSources(projectDir: string): SourceText[] {
  const root = join(projectDir, SOURCE_FOLDER);
  let entries;
  try {
    entries = readdirSync(root, { recursive: true, withFileTypes: true });
  } catch {
    throw new CliError(`no ${SOURCE_FOLDER}/ folder in ${projectDir}`, { hint: "run mcp-gen server-json in a project made by create-mcp-handler" });
  }
  const paths = entries
    .filter((entry) => entry.isFile() && /\.(?:[cm]?ts|[cm]?js)$/.test(entry.name) && !/\.d\.[cm]?ts$|\.test\.[cm]?[jt]s$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !relative(root, path).split(sep).includes("node_modules"))
    .sort();
  if (paths.length > MAX_SOURCE_FILES) {
    throw new CliError(`${SOURCE_FOLDER}/ holds ${paths.length} source files, more than ${MAX_SOURCE_FILES}`, {
      hint: "server-json reads the project's own code; keep generated or vendored trees out of src/",
    });
  }
  return paths.map((path) => ({ path: relative(projectDir, path).split(sep).join("/"), text: readFileSync(path, "utf8") }));
}

export interface ExistingServerJson {
  json: Record<string, unknown>;
  /** Whether this command wrote it: its publisher-provided `_meta` names mcp-gen as the tool. */
  ours: boolean;
}

export function readExistingServerJson(projectDir: string): ExistingServerJson | undefined {
  const path = join(projectDir, SERVER_JSON_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliError(`${SERVER_JSON_FILE} is not valid JSON`, { hint: "fix it, or move it aside and run mcp-gen server-json again" });
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new CliError(`${SERVER_JSON_FILE} is not a JSON object`, { hint: "move it aside" });
  const record = json as Record<string, unknown>;
  const meta = record._meta as Record<string, { tool?: unknown } | undefined> | undefined;
  return { json: record, ours: meta?.[PUBLISHER_META]?.tool === OWN_TOOL };
}

/**
 * package.json's text with `"mcpName": name`: the value replaced where the key is, else the
 * key added after the top-level "name". The result is parsed back and compared; should the
 * edit have touched anything else, the file is written out whole instead.
 */
export function withMcpName(manifest: PackageJson, name: string): string {
  const value = JSON.stringify(name);
  const edited = /"mcpName"\s*:\s*"(?:[^"\\]|\\.)*"/.test(manifest.text)
    ? manifest.text.replace(/"mcpName"\s*:\s*"(?:[^"\\]|\\.)*"/, `"mcpName": ${value}`)
    : manifest.text.replace(/^([ \t]*)"name"(\s*):(\s*)"(?:[^"\\]|\\.)*",[ \t]*\r?\n/m, (line, indent: string) => `${line}${indent}"mcpName": ${value},\n`);
  const wanted = { ...manifest.fields, mcpName: name };
  try {
    if (sameFields(JSON.parse(edited), wanted)) return edited;
  } catch {
    // the edit broke the file: written whole below
  }
  return `${JSON.stringify(wanted, null, 2)}\n`;
}

function sameFields(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(b);
  return Object.keys(a).length === keys.length && keys.every((key) => JSON.stringify(a[key]) === JSON.stringify(b[key]));
}

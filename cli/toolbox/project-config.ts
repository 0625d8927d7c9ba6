import { readFileSync } from "node:fs";
import { isAbsolute, join, normalize } from "node:path";
import { CliError } from "../errors.js";
import { withJsonValue } from "./json-text.js";
import { writeFilesAtomically } from "./write.js";

/**
 * A project's protocol revisions, kept under the "mcp-gen" key of its package.json:
 *
 *   "mcp-gen": { "out": "generated", "revisions": ["2025-11-25", "2026-07-28"],
 *                "extensions": { "2026-07-28": ["tasks"] },
 *                "schemas": { "2027-01-26": "schemas/2027-01-26.json" } }
 *
 * `revisions` are generated side by side under `out`; `extensions` are passed to the
 * generator for that revision; `schemas` says where a revision the lock does not pin is read
 * from (a path relative to the project, or an http(s) URL), and `mcp-gen types` records it
 * when it adds such a revision. `runtime`, when given, says where the application's runtime
 * comes from instead of a copy written beside the revision it serves: a package name
 * (`@mcp-gen/runtime`, a dependency of the project) or a folder of the project holding the
 * runtime's source, written as a relative import (`./packages/runtime/src`).
 */
export interface ProjectConfig {
  out: string;
  revisions: string[];
  extensions: Record<string, string[]>;
  schemas: Record<string, string>;
  runtime?: string;
}

export const CONFIG_KEY = "mcp-gen";
const KNOWN_KEYS = ["out", "revisions", "extensions", "schemas", "runtime"] as const;
const REVISION_NAME = /^(?:draft-)?\d{4}-\d{2}-\d{2}$/;

/** The project config in `dir`/package.json; undefined when the file or the key is absent. */
export function readProjectConfig(dir: string): ProjectConfig | undefined {
  const path = join(dir, "package.json");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    throw new CliError(`${path} is not valid JSON`, { hint: "fix the file's syntax" });
  }
  if (!isRecord(manifest) || !(CONFIG_KEY in manifest)) return undefined;
  return parseProjectConfig(manifest[CONFIG_KEY], path);
}

/** Checks a config value; the first problem is one line naming the key. */
export function parseProjectConfig(value: unknown, where = "package.json"): ProjectConfig {
  const bad = (key: string, problem: string, hint: string): never => {
    throw new CliError(`${where}: "${key === "" ? CONFIG_KEY : `${CONFIG_KEY}.${key}`}" ${problem}`, { hint });
  };
  if (!isRecord(value)) bad("", "must be an object", `write "${CONFIG_KEY}": { "revisions": ["2025-11-25", "2026-07-28"] }`);
  const config = value as Record<string, unknown>;
  const unknown = Object.keys(config).find((key) => !(KNOWN_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) bad(unknown, "is not a known key", `use ${KNOWN_KEYS.join(", ")}`);

  const out = config.out ?? "generated";
  if (!isInsideFolder(out)) bad("out", 'must be a folder inside the project, such as "generated"', "give a relative path without ..");
  const runtime = config.runtime;
  if (runtime !== undefined && !isRuntimeSpecifier(runtime)) {
    bad("runtime", `must be a package name or a folder inside the project, not ${JSON.stringify(runtime)}`, 'e.g. "@mcp-gen/runtime" or "./runtime"');
  }
  const revisions = config.revisions;
  if (!Array.isArray(revisions) || revisions.length === 0) bad("revisions", "must be a non-empty list", 'e.g. ["2025-11-25", "2026-07-28"]');
  (revisions as unknown[]).forEach((revision, index) => {
    if (typeof revision !== "string" || !REVISION_NAME.test(revision)) {
      bad(`revisions[${index}]`, `must be a revision name, not ${JSON.stringify(revision)}`, "use the form 2026-07-28 or draft-2026-07-28");
    }
    if ((revisions as unknown[]).indexOf(revision) !== index) bad(`revisions[${index}]`, `repeats ${revision}`, "list each revision once");
  });
  const listed = revisions as string[];
  const extensions = listsByRevision(config.extensions, "extensions", listed, bad);
  const schemas = stringsByRevision(config.schemas, "schemas", listed, bad);
  const parsed: ProjectConfig = { out: normalize(out as string), revisions: sortRevisions(listed), extensions, schemas };
  if (runtime !== undefined) parsed.runtime = runtime as string;
  return parsed;
}

/** An npm package name, optionally scoped. */
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/** Whether a `runtime` value names a folder of the project (a relative import) rather than a package. */
export function isRuntimeFolder(runtime: string): boolean {
  return runtime.startsWith("./");
}

function isRuntimeSpecifier(value: unknown): value is string {
  if (typeof value !== "string") return false;
  return isRuntimeFolder(value) ? isInsideFolder(value) && normalize(value) !== "." : PACKAGE_NAME.test(value);
}

function isInsideFolder(path: unknown): path is string {
  return typeof path === "string" && path !== "" && !isAbsolute(path) && !normalize(path).split(/[\\/]/).includes("..");
}

type Bad = (key: string, problem: string, hint: string) => never;

function listsByRevision(value: unknown, key: string, listed: readonly string[], bad: Bad): Record<string, string[]> {
  const entries = byRevision(value, key, listed, bad);
  for (const [revision, names] of Object.entries(entries)) {
    if (!Array.isArray(names) || names.some((name) => typeof name !== "string" || name === "")) {
      bad(`${key}.${revision}`, "must be a list of extension names or paths", 'e.g. ["tasks"]');
    }
  }
  return entries as Record<string, string[]>;
}

function stringsByRevision(value: unknown, key: string, listed: readonly string[], bad: Bad): Record<string, string> {
  const entries = byRevision(value, key, listed, bad);
  for (const [revision, location] of Object.entries(entries)) {
    if (typeof location !== "string" || location === "") bad(`${key}.${revision}`, "must be a schema path or URL", '"schemas/2027-01-26.json"');
  }
  return entries as Record<string, string>;
}

function byRevision(value: unknown, key: string, listed: readonly string[], bad: Bad): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isRecord(value)) bad(key, "must be an object keyed by revision", `e.g. { "${listed.at(-1)}": ... }`);
  const entries = value as Record<string, unknown>;
  const stray = Object.keys(entries).find((revision) => !listed.includes(revision));
  if (stray !== undefined) bad(`${key}.${stray}`, 'names a revision that "revisions" does not list', `add ${stray} to revisions or remove this entry`);
  return { ...entries };
}

/** Revisions oldest first, by the date in their names (a draft sorts at its date). */
export function sortRevisions(revisions: Iterable<string>): string[] {
  const date = (revision: string) => revision.replace(/^draft-/, "");
  return [...revisions].sort((a, b) => (date(a) < date(b) ? -1 : date(a) > date(b) ? 1 : a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The config with `revision` listed (and its schema location recorded, or forgotten when
 * pinned; its extensions recorded when given, else kept as they were).
 */
export function withRevision(config: ProjectConfig, revision: string, schemaLocation?: string, extensions?: string[]): ProjectConfig {
  const schemas = { ...config.schemas };
  if (schemaLocation === undefined) delete schemas[revision];
  else schemas[revision] = schemaLocation;
  const listedExtensions = extensions === undefined ? config.extensions : { ...config.extensions, [revision]: [...extensions] };
  return { ...config, revisions: sortRevisions(new Set([...config.revisions, revision])), schemas, extensions: listedExtensions };
}

/**
 * Writes `config` under the "mcp-gen" key of `dir`/package.json. Only that value's text is
 * replaced (or added at the end), so every other key keeps its order and layout.
 */
export function writeProjectConfig(dir: string, config: ProjectConfig): void {
  const text = readFileSync(join(dir, "package.json"), "utf8");
  const next = withConfigText(text, renderConfig(config));
  if (next !== text) writeFilesAtomically(dir, [{ path: "package.json", content: next }]);
}

/** `text` (a package.json) with the "mcp-gen" value replaced by `value` (or added at the end), every other byte kept. */
export function withConfigText(text: string, value: Record<string, unknown>): string {
  return withJsonValue(text, [CONFIG_KEY], value, "package.json");
}

/** The config as package.json holds it. */
export function renderConfig(config: ProjectConfig): Record<string, unknown> {
  const rendered: Record<string, unknown> = { out: config.out, revisions: config.revisions };
  if (Object.keys(config.extensions).length > 0) rendered.extensions = config.extensions;
  if (Object.keys(config.schemas).length > 0) rendered.schemas = config.schemas;
  if (config.runtime !== undefined) rendered.runtime = config.runtime;
  return rendered;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

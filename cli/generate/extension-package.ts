import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CliError } from "../errors.js";
import { packageRoot } from "./paths.js";

/**
 * An extension published as an npm package (`--extension @modelcontextprotocol/ext-apps`): the
 * JSON Schema the package exports and the identifier the package declares. Nothing is imported
 * or run: the schema is the file behind the package's `exports` key ending in `schema.json`,
 * and the identifier is the string constant `EXTENSION_ID` its published type declarations
 * export (the ext-apps package's server entry has `export declare const EXTENSION_ID = "..."`).
 */
export interface PublishedExtension {
  /** The package's folder. */
  root: string;
  name: string;
  version: string;
  /** The exported schema file. */
  schemaPath: string;
  /** The identifier its declarations export, when they export one. */
  id?: string;
}

/** An npm package name, scoped or not; anything else is a path. */
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/** The largest declaration file read while looking for the identifier. */
const MAX_DECLARATION_BYTES = 1024 * 1024;

export function isPackageName(value: string): boolean {
  return PACKAGE_NAME.test(value);
}

/**
 * The installed package named `name`: looked up in node_modules from `from` (the project)
 * upwards, then from mcp-gen's own folder, the way Node finds a dependency.
 */
export function findPublishedExtension(name: string, from: string): PublishedExtension | undefined {
  const root = [from, packageRoot].map((start) => findInstalled(name, resolve(start))).find((found) => found !== undefined);
  if (root === undefined) return undefined;
  const manifest = readJson(join(root, "package.json")) as { version?: unknown; exports?: unknown };
  const exportsMap = typeof manifest.exports === "object" && manifest.exports !== null ? (manifest.exports as Record<string, unknown>) : {};
  const schemaKey = Object.keys(exportsMap).find((key) => key.endsWith("schema.json") && typeof exportsMap[key] === "string");
  if (schemaKey === undefined) {
    throw new CliError(`package ${name} (${root}) exports no JSON Schema: no "exports" key ends in schema.json`, {
      hint: "pass the extension's schema file instead of the package name",
    });
  }
  return {
    root,
    name,
    version: String(manifest.version ?? "unknown"),
    schemaPath: join(root, exportsMap[schemaKey] as string),
    id: declaredIdentifier(root, exportsMap),
  };
}

function findInstalled(name: string, start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

const DECLARED_ID = /export declare const EXTENSION_ID\s*=\s*"([^"\n]+)"/;

/** The `EXTENSION_ID` string one of the package's exported declaration files declares. */
function declaredIdentifier(root: string, exportsMap: Readonly<Record<string, unknown>>): string | undefined {
  for (const target of Object.values(exportsMap)) {
    const types = typeof target === "object" && target !== null ? (target as Record<string, unknown>).types : undefined;
    if (typeof types !== "string") continue;
    const text = readBounded(join(root, types));
    const id = text === undefined ? undefined : DECLARED_ID.exec(text)?.[1];
    if (id !== undefined) return id;
  }
  return undefined;
}

function readBounded(path: string): string | undefined {
  if (!existsSync(path) || !statSync(path).isFile()) return undefined;
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(MAX_DECLARATION_BYTES);
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function readJson(path: string): unknown {
  const text = readBounded(path);
  try {
    return JSON.parse(text ?? "{}");
  } catch {
    throw new CliError(`${path} is not valid JSON`, { hint: "reinstall the package" });
  }
}

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The installed package's root: the nearest folder above this module whose package.json is
 * mcp-gen's. It works from the sources (cli/generate/) and from the build (dist/cli/generate/),
 * and from a copy installed under someone else's node_modules.
 */
function findPackageRoot(start: string): string {
  let dir = start;
  for (let depth = 0; depth < 8; depth++) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name === "mcp-gen") return dir;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`mcp-gen's package.json not found above ${start}`);
}

export const packageRoot = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
export const lockPath = join(packageRoot, "schemas", "lock.json");
export const runtimeTemplatesDir = join(packageRoot, "templates", "runtime");

/** The version of mcp-gen itself, part of every output's fingerprint. */
export function generatorVersion(): string {
  return JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")).version;
}

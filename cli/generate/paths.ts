import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The installed package: the nearest folder above this module whose package.json is
 * mcp-gen's, and its version. It works from the sources (cli/generate/) and from the build
 * (dist/cli/generate/), and from a copy installed under someone else's node_modules.
 */
function findPackage(start: string): { root: string; version: string } {
  let dir = start;
  for (let depth = 0; depth < 8; depth++) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version?: string };
      if (name === "mcp-gen") return { root: dir, version: String(version) };
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`mcp-gen's package.json not found above ${start}`);
}

const found = findPackage(dirname(fileURLToPath(import.meta.url)));

export const packageRoot = found.root;
export const lockPath = join(packageRoot, "schemas", "lock.json");
export const runtimeSourceDir = join(packageRoot, "packages", "runtime", "src");

/** The version of mcp-gen itself, part of every output's generator identity. */
export function generatorVersion(): string {
  return found.version;
}

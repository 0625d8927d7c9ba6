import { readdirSync } from "node:fs";
import { join } from "node:path";
import { sorted } from "./sort.js";

/**
 * Every entry below `dir` that is not a folder, as sorted `/`-separated paths relative to
 * `dir` (each after `prefix`); none when `dir` does not exist. Symbolic links are listed
 * and never followed, so a link loop cannot make the walk endless.
 */
export function listFiles(dir: string, prefix = ""): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const isFolder = new Map(entries.map((entry) => [entry.name, entry.isDirectory()]));
  return sorted(isFolder.keys()).flatMap((name) => (isFolder.get(name) ? listFiles(join(dir, name), `${prefix}${name}/`) : [`${prefix}${name}`]));
}

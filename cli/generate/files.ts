import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sorted } from "./sort.js";

/**
 * Every entry under `dir` that is not a folder, as sorted `/`-separated paths relative to
 * `dir`; none when `dir` is missing. A symbolic link is listed as an entry and never
 * followed, so a link loop inside an output folder cannot send the listing round forever.
 */
export function listFiles(dir: string, prefix = ""): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const byName = new Map(entries.map((entry) => [entry.name, entry]));
  return sorted(byName.keys()).flatMap((name) => (byName.get(name)!.isDirectory() ? listFiles(join(dir, name), `${prefix}${name}/`) : [`${prefix}${name}`]));
}

/** The bytes of a regular file; undefined for anything else (missing, a folder, a link). */
export function readRegularFile(path: string): Buffer | undefined {
  try {
    return lstatSync(path).isFile() ? readFileSync(path) : undefined;
  } catch {
    return undefined;
  }
}

import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { sorted } from "./sort.js";

/**
 * Every file below `dir` as a path relative to `root` with `/` separators, in sorted order;
 * an empty list when `dir` does not exist. Symbolic links are listed as files and never
 * followed, so a link loop cannot make the walk endless.
 */
export function listFiles(dir: string, root = dir): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const kinds = new Map(entries.map((entry) => [entry.name, entry.isDirectory()]));
  return sorted(kinds.keys()).flatMap((name) => {
    const path = join(dir, name);
    return kinds.get(name) ? listFiles(path, root) : [relative(root, path).split(sep).join("/")];
  });
}

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { CliError } from "../errors.js";
import { sorted } from "./sort.js";

/**
 * Writes the whole output into a temp folder beside the target, then swaps it in: the target
 * holds either the previous output or the new one, never half of each.
 */
export async function replaceFolder(target: string, files: ReadonlyMap<string, string>): Promise<void> {
  const temp = `${target}.tmp-${process.pid}`;
  const previous = `${target}.old-${process.pid}`;
  try {
    await rm(temp, { recursive: true, force: true });
    for (const path of sorted(files.keys())) {
      const file = join(temp, path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, files.get(path)!);
    }
    if (existsSync(target)) await rename(target, previous);
    await rename(temp, target);
    await rm(previous, { recursive: true, force: true });
  } catch (error) {
    // Best effort: put things back as they were; the original failure is what gets reported.
    await rm(temp, { recursive: true, force: true }).catch(() => undefined);
    if (existsSync(previous) && !existsSync(target)) await rename(previous, target).catch(() => undefined);
    throw new CliError(`cannot write ${target}: ${(error as Error).message}`, { hint: "check that --out names a writable folder" });
  }
}

/** Paths (relative to `target`) whose bytes differ from `files`, are missing, or are extra. */
export function staleFiles(target: string, files: ReadonlyMap<string, string>): string[] {
  const present = new Set(listFiles(target));
  const stale = [...files].filter(([path, text]) => !present.has(path) || readFileSync(join(target, path), "utf8") !== text).map(([path]) => path);
  const extra = [...present].filter((path) => !files.has(path));
  return sorted([...stale, ...extra]);
}

export function listFiles(dir: string, root = dir): string[] {
  if (!existsSync(dir)) return [];
  return sorted(readdirSync(dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path, root) : [relative(root, path).split(sep).join("/")];
  });
}

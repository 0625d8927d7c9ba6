import { existsSync, lstatSync, readdirSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { CliError } from "../errors.js";
import { listFiles } from "../toolbox/files.js";
import { readRegularFile } from "./files.js";
import { MANIFEST_FILE } from "./manifest.js";
import { sorted } from "../toolbox/sort.js";

/**
 * Writes the whole output into a temp folder beside the target, then swaps it in: the target
 * holds either the previous output or the new one, never half of each. Only a missing or
 * empty target, or one that carries our manifest, is replaced (see assertReplaceable).
 */
export async function replaceFolder(target: string, files: ReadonlyMap<string, string>): Promise<void> {
  const targetExists = assertReplaceable(target);
  const temp = `${target}.tmp-${process.pid}`;
  const previous = `${target}.old-${process.pid}`;
  try {
    await rm(temp, { recursive: true, force: true });
    for (const path of sorted(files.keys())) {
      const file = join(temp, path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, files.get(path)!);
    }
    if (targetExists) await rename(target, previous);
    await rename(temp, target);
    await rm(previous, { recursive: true, force: true });
  } catch (error) {
    // Best effort: put things back as they were; the original failure is what gets reported.
    await rm(temp, { recursive: true, force: true }).catch(() => undefined);
    if (existsSync(previous) && !existsSync(target)) await rename(previous, target).catch(() => undefined);
    throw new CliError(`cannot write ${target}: ${(error as Error).message}`, { hint: "check that --out names a writable folder" });
  }
}

/**
 * `--out X` replaces `X/v<yymm>` whole, so that folder must be ours: missing, empty, or
 * carrying our manifest. A user's folder (notes, the input schema) is refused, untouched.
 * Returns whether the target exists.
 */
function assertReplaceable(target: string): boolean {
  let isFolder: boolean;
  try {
    isFolder = lstatSync(target).isDirectory();
  } catch {
    return false; // missing, or under a file: the write itself reports the latter
  }
  const names = isFolder ? readdirSync(target) : [];
  if (isFolder && (names.length === 0 || names.includes(MANIFEST_FILE))) return true;
  const what = isFolder ? `holds files mcp-gen did not write (no ${MANIFEST_FILE})` : "is not a folder";
  throw new CliError(`${target} ${what}; refusing to replace it`, { hint: "pass another --out, or move that folder away" });
}

/** Paths (relative to `target`) whose bytes differ from `files`, are missing, or are extra. */
export function staleFiles(target: string, files: ReadonlyMap<string, string>): string[] {
  const present = new Set(listFiles(target));
  const stale = [...files].filter(([path, text]) => !present.has(path) || readRegularFile(join(target, path))?.toString("utf8") !== text).map(([path]) => path);
  const extra = [...present].filter((path) => !files.has(path));
  return sorted([...stale, ...extra]);
}

import { existsSync, lstatSync, readdirSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { CliError } from "../errors.js";
import { listFiles } from "../toolbox/files.js";
import { readRegularFile } from "./files.js";
import { MANIFEST_FILE, readManifest } from "./manifest.js";
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
 * carrying our manifest and nothing the manifest does not list. A user's folder (notes, the
 * input schema), or ours with a user's file added, is refused untouched, naming those files:
 * the swap would delete them. Returns whether the target exists.
 */
function assertReplaceable(target: string): boolean {
  let isFolder: boolean;
  try {
    isFolder = lstatSync(target).isDirectory();
  } catch {
    return false; // missing, or under a file: the write itself reports the latter
  }
  const hint = { hint: "pass another --out, or move those files out of that folder" };
  if (!isFolder) throw new CliError(`${target} is not a folder; refusing to replace it`, hint);
  const names = readdirSync(target);
  if (names.length === 0) return true;
  if (!names.includes(MANIFEST_FILE)) throw new CliError(`${target} holds files mcp-gen did not write (no ${MANIFEST_FILE}); refusing to replace it`, hint);
  const outputs = readManifest(target)?.outputs;
  if (typeof outputs !== "object" || outputs === null) {
    throw new CliError(`${target}/${MANIFEST_FILE} is not a manifest mcp-gen wrote (no outputs list); refusing to replace ${target}`, hint);
  }
  const unlisted = listFiles(target).filter((path) => path !== MANIFEST_FILE && !Object.hasOwn(outputs, path));
  if (unlisted.length > 0) {
    const shown = unlisted.length > MAX_NAMED ? `${unlisted.slice(0, MAX_NAMED).join(", ")} and ${unlisted.length - MAX_NAMED} more` : unlisted.join(", ");
    throw new CliError(`${target} holds files mcp-gen did not write (${shown}: not in its ${MANIFEST_FILE}); refusing to replace it`, hint);
  }
  return true;
}

/** How many unlisted files a refusal names before it counts the rest. */
const MAX_NAMED = 5;

/** Paths (relative to `target`) whose bytes differ from `files`, are missing, or are extra. */
export function staleFiles(target: string, files: ReadonlyMap<string, string>): string[] {
  const present = new Set(listFiles(target));
  const stale = [...files].filter(([path, text]) => !present.has(path) || readRegularFile(join(target, path))?.toString("utf8") !== text).map(([path]) => path);
  const extra = [...present].filter((path) => !files.has(path));
  return sorted([...stale, ...extra]);
}

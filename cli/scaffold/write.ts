import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { CliError } from "../errors.js";
import type { PlannedFile } from "./render.js";

/** Files that exist in `root` among `files` (paths relative to root). */
export function existingFiles(root: string, files: readonly PlannedFile[]): string[] {
  return files.filter((file) => existsSync(join(root, file.path))).map((file) => file.path);
}

/** Refuses with a one-line error when any planned file exists and `force` is off. */
export function refuseExisting(root: string, files: readonly PlannedFile[], force: boolean): void {
  if (force) return;
  const clashes = existingFiles(root, files);
  if (clashes.length > 0) {
    throw new CliError(`refusing to overwrite ${clashes.join(", ")} in ${root}`, {
      hint: "pass --force to overwrite, or choose another name",
    });
  }
}

/**
 * Writes `files` below `root` all or nothing: every file goes to a temporary name beside
 * its target first, then each is renamed into place. If anything fails, the temporaries
 * and the folders made for them are removed and the files already replaced are restored.
 */
export function writeFilesAtomically(root: string, files: readonly PlannedFile[]): void {
  const stamp = `.mcp-gen-${process.pid}-${Date.now().toString(36)}`;
  const createdDirs: string[] = [];
  const staged: Array<{ temp: string; target: string; backup?: string; placed?: boolean }> = [];
  try {
    for (const file of files) {
      const target = resolve(root, file.path);
      if (existsSync(target) && statSync(target).isDirectory()) {
        throw new CliError(`${file.path} is a folder in ${root}; a file cannot replace it`, {
          hint: "move the folder away, or choose another name",
        });
      }
      createdDirs.push(...makeDirs(dirname(target)));
      const temp = `${target}${stamp}.tmp`;
      staged.push({ temp, target });
      writeFileSync(temp, file.content);
    }
    for (const entry of staged) {
      if (existsSync(entry.target)) {
        entry.backup = `${entry.target}${stamp}.bak`;
        renameSync(entry.target, entry.backup);
      }
      renameSync(entry.temp, entry.target);
      entry.placed = true;
    }
  } catch (error) {
    for (const entry of staged.reverse()) {
      rmSync(entry.temp, { force: true });
      if (entry.placed) rmSync(entry.target, { force: true });
      if (entry.backup && existsSync(entry.backup)) renameSync(entry.backup, entry.target);
    }
    for (const dir of createdDirs.reverse()) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  for (const entry of staged) if (entry.backup) rmSync(entry.backup, { force: true });
}

/** Makes `dir` and its missing parents; returns those it made, outermost first. */
function makeDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let current = dir; !existsSync(current); current = dirname(current)) missing.unshift(current);
  if (missing.length > 0) mkdirSync(dir, { recursive: true });
  return missing;
}

/** True when `dir` does not exist or holds nothing. */
export function isEmptyFolder(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

/**
 * Creates a project folder at `target` from `files`: everything is written into a fresh
 * sibling folder, which is renamed to `target` only once complete. Into an existing folder
 * (empty, or non-empty with `overwrite`) the files are moved one by one, all or nothing.
 */
export function writeProjectFolder(target: string, files: readonly PlannedFile[], overwrite: boolean): void {
  if (!isEmptyFolder(target)) {
    if (!overwrite) {
      throw new CliError(`the folder ${target} is not empty`, {
        hint: "choose a new folder, or pass --overwrite to write into it (files with the same name are replaced)",
      });
    }
    writeFilesAtomically(target, files);
    return;
  }
  if (existsSync(target)) {
    // An empty folder stays (it may be the shell's working directory); the files go in.
    writeFilesAtomically(target, files);
    return;
  }
  mkdirSync(dirname(target), { recursive: true });
  const staging = mkdtempSync(join(dirname(target), `.${basename(target)}-`));
  try {
    // The staging folder is private until renamed: files go straight to their names.
    for (const file of files) {
      mkdirSync(dirname(join(staging, file.path)), { recursive: true });
      writeFileSync(join(staging, file.path), file.content);
    }
    renameSync(staging, target);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

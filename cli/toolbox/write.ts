import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { CliError } from "../errors.js";
import { fsFailure } from "./fs-error.js";

/** One file to write: a path relative to the target folder (with `/`) and its text. */
export interface PlannedFile {
  path: string;
  content: string;
  /** A binary file's bytes (a packed tarball), written instead of `content`, which is then empty. */
  bytes?: Uint8Array;
  /** The permission bits to create it with (a configuration file holding secrets keeps its 0600); else the umask's default. */
  mode?: number;
}

interface Staged {
  path: string;
  temp: string;
  target: string;
  backup?: string;
  placed?: boolean;
}

/**
 * Writes `files` below the existing folder `root` all or nothing: every file goes to a
 * temporary name beside its target first, then each is renamed into place. Before anything
 * is written every path is checked (see `checkedTarget`); if a write fails, the temporaries
 * and the folders made for them are removed and replaced files are restored, and the error
 * names anything that could not be put back.
 */
export function writeFilesAtomically(root: string, files: readonly PlannedFile[]): void {
  const realRoot = existingFolder(root);
  const targets = files.map((file) => checkedTarget(root, realRoot, file.path));
  const stamp = `.mcp-gen-${process.pid}-${randomBytes(4).toString("hex")}`;
  const madeDirs: string[] = [];
  const staged: Staged[] = [];
  let current = "";
  try {
    files.forEach((file, index) => {
      current = file.path;
      makeDirs(dirname(targets[index]!), madeDirs);
      const entry: Staged = { path: file.path, temp: `${targets[index]}${stamp}.tmp`, target: targets[index]! };
      staged.push(entry);
      writeFileSync(entry.temp, file.bytes ?? file.content, { flag: "wx", mode: file.mode });
    });
    for (const entry of staged) {
      current = entry.path;
      if (entryAt(entry.target)) {
        entry.backup = `${entry.target}${stamp}.bak`;
        renameSync(entry.target, entry.backup);
      }
      renameSync(entry.temp, entry.target);
      entry.placed = true;
    }
  } catch (error) {
    throw failureAfterRollBack(error, `cannot write ${current} in ${root}`, rollBack(staged, madeDirs));
  }
  for (const entry of staged) if (entry.backup) bestEffort(() => rmSync(entry.backup!, { force: true }));
}

/**
 * Creates the folder `target` holding `files`, whole or not at all: everything is written
 * into a fresh hidden sibling that is renamed to `target` once complete. Folders are made
 * with the user's umask, as mkdir(1) would (a temp-folder call would make them 0700).
 */
export function writeNewFolder(target: string, files: FileSet): void {
  const madeDirs: string[] = [];
  try {
    renameSync(stageFolder(target, files, madeDirs), target);
  } catch (error) {
    throw failureAfterRollBack(error, `cannot create ${target}`, rollBack([], madeDirs));
  }
}

/**
 * Replaces the folder `target` (or creates it) with one holding exactly `files`: the new
 * folder is staged beside it and swapped in, so `target` holds either the previous content
 * or the new one, never half of each. Whether `target` may be replaced is the caller's call.
 */
export function replaceFolder(target: string, files: FileSet): void {
  const madeDirs: string[] = [];
  const previous = `${target}.previous-${process.pid}-${randomBytes(4).toString("hex")}`;
  let movedAside = false;
  try {
    const staging = stageFolder(target, files, madeDirs);
    if (entryAt(target)) {
      renameSync(target, previous);
      movedAside = true;
    }
    renameSync(staging, target);
  } catch (error) {
    const leftovers = rollBack([], madeDirs);
    if (movedAside && !bestEffort(() => entryAt(target) || renameSync(previous, target))) leftovers.push(previous);
    throw failureAfterRollBack(error, `cannot write ${target}`, leftovers);
  }
  if (movedAside) bestEffort(() => rmSync(previous, { recursive: true, force: true }));
}

/** Files as planned, or as a map from path to text. */
export type FileSet = readonly PlannedFile[] | ReadonlyMap<string, string>;

/** A fresh hidden sibling of `target` holding `files`; it and any parents made are recorded in `made`. */
function stageFolder(target: string, files: FileSet, made: string[]): string {
  makeDirs(dirname(target), made);
  const staging = join(dirname(target), `.${basename(target)}-${randomBytes(6).toString("hex")}`);
  mkdirSync(staging);
  made.push(staging);
  const entries = files instanceof Map ? [...files].map(([path, content]) => ({ path, content })) : (files as readonly PlannedFile[]);
  // Each folder is made once: a scaffold has about 25 folders for its 150 files, and every
  // system call counts where creating a file is already the bulk of the time.
  const folders = new Set([staging]);
  for (const file of entries) {
    const path = resolve(staging, file.path);
    if (!isInside(staging, path) || path === staging) throw new CliError(`${file.path} is not a path inside ${target}`);
    const folder = dirname(path);
    if (!folders.has(folder)) {
      mkdirSync(folder, { recursive: true });
      folders.add(folder);
    }
    writeFileSync(path, (file as PlannedFile).bytes ?? file.content, { flag: "wx" });
  }
  return staging;
}

/** The one-line error for a failed write, naming anything the rollback could not undo. */
function failureAfterRollBack(error: unknown, action: string, leftovers: readonly string[]): CliError {
  const failure = fsFailure(error, action);
  if (leftovers.length === 0) return failure;
  return new CliError(`${failure.message}; could not clean up ${leftovers.join(", ")}`, { hint: "remove those by hand", cause: error });
}

/** The real path of `root`, which must be an existing folder. */
function existingFolder(root: string): string {
  let real: string;
  try {
    real = realpathSync(root);
  } catch (error) {
    throw fsFailure(error, `cannot write into ${root}`);
  }
  if (!statSync(real).isDirectory()) throw new CliError(`${root} is a file, not a folder`, { hint: "choose a folder" });
  return real;
}

/**
 * The absolute target of `path` below `root`, once writing it is known to stay there:
 * every existing step on the way is a folder (not a file), none is a link leading outside
 * root (`--overwrite` into a folder must never write into another one through a link),
 * and the target itself is not a folder. The last step may be a link: the rename
 * replaces the link itself, it does not write through it.
 */
function checkedTarget(root: string, realRoot: string, path: string): string {
  const target = resolve(root, path);
  if (target === root || !isInside(root, target)) throw new CliError(`${path} is not a path inside ${root}`);
  const steps = relative(root, target).split(sep);
  let current = root;
  for (const [index, step] of steps.entries()) {
    current = join(current, step);
    const entry = entryAt(current);
    if (!entry) break;
    const shown = steps.slice(0, index + 1).join("/");
    if (index === steps.length - 1) {
      if (entry.isDirectory())
        throw new CliError(`${path} is a folder in ${root}; a file cannot replace it`, { hint: "move the folder away, or choose another name" });
      break;
    }
    if (entry.isSymbolicLink()) {
      const real = realPathOrNothing(current);
      if (real === undefined || !isInside(realRoot, real)) {
        throw new CliError(`${shown} in ${root} is a symbolic link to ${real ?? "a missing path"}, outside the folder; nothing is written through it`, {
          hint: "replace the link with a real folder, or write somewhere else",
        });
      }
    }
    if (!statSync(current).isDirectory()) {
      throw new CliError(`${shown} is a file in ${root}, so ${path} cannot be written below it`, { hint: "move the file away, or choose another folder" });
    }
  }
  return target;
}

/** Makes `dir` and its missing parents one by one, recording each in `made` as it appears. */
function makeDirs(dir: string, made: string[]): void {
  const missing: string[] = [];
  for (let current = dir; !entryAt(current); current = dirname(current)) missing.unshift(current);
  for (const folder of missing) {
    mkdirSync(folder);
    made.push(folder);
  }
}

/** Undoes a partial write, newest first; returns what could not be undone. */
function rollBack(staged: readonly Staged[], madeDirs: readonly string[]): string[] {
  const leftovers: string[] = [];
  const attempt = (path: string, undo: () => void) => {
    if (!bestEffort(undo)) leftovers.push(path);
  };
  for (const entry of [...staged].reverse()) {
    attempt(entry.temp, () => rmSync(entry.temp, { force: true }));
    if (entry.placed) attempt(entry.target, () => rmSync(entry.target, { force: true }));
    const backup = entry.backup;
    if (backup) attempt(backup, () => entryAt(backup) && renameSync(backup, entry.target));
  }
  for (const dir of [...madeDirs].reverse()) attempt(dir, () => rmSync(dir, { recursive: true, force: true }));
  return leftovers;
}

function bestEffort(step: () => unknown): boolean {
  try {
    step();
    return true;
  } catch {
    return false;
  }
}

/** What is at `path` (not following a final link), or undefined when nothing is. */
function entryAt(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function realPathOrNothing(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** True when `path` is `folder` or below it. */
export function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

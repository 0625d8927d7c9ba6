import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../errors.js";
import { fsFailure } from "../toolbox/fs-error.js";
import { writeFilesAtomically, writeNewFolder, type PlannedFile } from "../toolbox/write.js";

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
 * True when `dir` does not exist or holds nothing; a one-line error when it is a file or
 * cannot be read, since no project can go there.
 */
export function isEmptyFolder(dir: string): boolean {
  if (!existsSync(dir)) return true;
  if (!statSync(dir).isDirectory()) {
    throw new CliError(`${dir} is a file, not a folder`, { hint: "choose a new folder name for the project" });
  }
  try {
    return readdirSync(dir).length === 0;
  } catch (error) {
    throw fsFailure(error, `cannot read the folder ${dir}`);
  }
}

/**
 * Creates a project folder at `target` from `files`: a new folder appears whole or not at
 * all. Into an existing folder (empty, or non-empty with `overwrite`) the files are moved
 * one by one, all or nothing, never through a link that leads out of the folder.
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
  // An empty folder stays (it may be the shell's working directory); the files go in.
  if (existsSync(target)) writeFilesAtomically(target, files);
  else writeNewFolder(target, files);
}

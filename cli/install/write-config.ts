/**
 * Merges one server entry into a client's configuration file without ever losing the
 * user's file: it is read whole and checked before anything is written; a file that cannot
 * be read as the client's format is refused with one line naming it; a changed file is
 * first copied to a backup beside it, and the backup and the new file are put in place
 * together by rename (`writeFilesAtomically`), keeping the file's permissions. A second run
 * with the same entry writes nothing.
 */
import { lstatSync, mkdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { CliError } from "../errors.js";
import { fsFailure } from "../toolbox/fs-error.js";
import { writeFilesAtomically } from "../toolbox/write.js";
import type { ConfigFormat, ConfigLocation } from "./clients.js";
import { JsonSyntaxError } from "./jsonc.js";
import { mergeJsonEntry, type EntryChange } from "./json-merge.js";
import { mergeTomlEntry, type TomlEntry } from "./toml-merge.js";
import { TomlSyntaxError } from "./toml.js";

/** The largest configuration file read: Claude Code's ~/.claude.json keeps history and grows to megabytes. */
export const MAX_CONFIG_BYTES = 64 * 1024 * 1024;

/** The suffix of the copy of a file as it was before install changed it. */
export const BACKUP_SUFFIX = ".mcp-gen.bak";

export interface WriteOutcome {
  /** The file written (a link's target, when the configured path is a link). */
  file: string;
  change: EntryChange;
  backup?: string;
}

/** Puts `entry` under `key` in the file at `location`, in `format`; see the module comment. */
export function writeConfigEntry(location: ConfigLocation, format: ConfigFormat, key: string, entry: Record<string, unknown>): WriteOutcome {
  const file = followLink(location.file);
  const before = readConfig(file);
  const merged = mergedText(file, before?.text ?? "", format, location.table, key, entry);
  if (merged.change === "unchanged") return { file, change: "unchanged" };
  try {
    mkdirSync(dirname(file), { recursive: true });
  } catch (error) {
    throw fsFailure(error, `cannot create the folder of ${file}`);
  }
  // The client may have rewritten its file meanwhile (Claude Code writes ~/.claude.json
  // often): merging into a stale copy would undo that, so the file must still be as read.
  if (readConfig(file)?.text !== before?.text) throw new CliError(`${file} changed while it was being edited; nothing was written`, { hint: "run the command again" });
  const name = basename(file);
  const backup = before === undefined ? undefined : `${name}${BACKUP_SUFFIX}`;
  const files = [
    ...(backup === undefined ? [] : [{ path: backup, content: before!.text, mode: before!.mode }]),
    { path: name, content: merged.text, mode: before?.mode },
  ];
  writeFilesAtomically(dirname(file), files);
  return { file, change: merged.change, backup: backup === undefined ? undefined : `${file}${BACKUP_SUFFIX}` };
}

/** The text with the entry merged, or one line naming the file and where it stops being readable. */
function mergedText(file: string, text: string, format: ConfigFormat, table: readonly string[], key: string, entry: Record<string, unknown>) {
  try {
    if (format.kind === "json") return mergeJsonEntry(text, format.dialect, table, key, entry);
    return mergeTomlEntry(text, table[0]!, key, entry as TomlEntry);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError) && !(error instanceof TomlSyntaxError)) throw error;
    const { line, column } = positionOf(text, error.offset);
    throw new CliError(`cannot read ${file}: ${error.reason} at line ${line}, column ${column}; nothing was changed`, {
      hint: "fix the file, or add the entry by hand: mcp-gen install --print shows it",
      cause: error,
    });
  }
}

/** Where a configured path really is: a link (dotfiles kept in a repository) is written through, not replaced. */
function followLink(path: string): string {
  try {
    if (!lstatSync(path).isSymbolicLink()) return path;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return path;
    throw fsFailure(error, `cannot read ${path}`);
  }
  try {
    return realpathSync(path);
  } catch (error) {
    throw fsFailure(error, `${path} is a link that cannot be followed`);
  }
}

/** The file's text and permission bits, or undefined when there is no file. */
function readConfig(file: string): { text: string; mode: number } | undefined {
  let stats;
  try {
    stats = statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw fsFailure(error, `cannot read ${file}`);
  }
  if (!stats.isFile()) throw new CliError(`${file} is not a regular file`, { hint: "move it away, or pass another --scope" });
  if (stats.size > MAX_CONFIG_BYTES) throw new CliError(`${file} is larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB; nothing was changed`, { hint: "add the entry by hand: mcp-gen install --print shows it" });
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw fsFailure(error, `cannot read ${file}`);
  }
  try {
    // Fatal: text decoded with replacement characters would be written back changed.
    return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes), mode: stats.mode & 0o7777 };
  } catch {
    throw new CliError(`cannot read ${file}: it is not UTF-8 text; nothing was changed`, { hint: "add the entry by hand: mcp-gen install --print shows it" });
  }
}

/** 1-based line and column of `offset` in `text`. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CliError } from "../errors.js";
import { formatFiles } from "../toolbox/format.js";
import { withFolderLock } from "../toolbox/lock.js";
import { writeFilesAtomically, type PlannedFile } from "../toolbox/write.js";
import { refuseExisting } from "./write.js";

export interface ApplyOptions {
  force: boolean;
  dryRun: boolean;
}

export interface ApplyResult {
  /** Paths relative to the project: new files first, then edited ones. */
  created: string[];
  edited: string[];
  dryRun: boolean;
}

/**
 * The project a generator run from `start` edits: the nearest folder from `start` up whose
 * package.json has an "mcp-gen" key, or which holds package.json and src/server.ts, as git
 * finds its repository from a subfolder.
 */
export function findProject(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (isProject(dir)) return dir;
    if (dirname(dir) === dir) break;
  }
  throw new CliError(
    `${start} is not a project made by create-mcp-handler, nor inside one (no package.json with an "mcp-gen" key, or package.json and src/server.ts, in it or a folder above it)`,
    {
      hint: "run this inside the project, or pass --project <dir>",
    },
  );
}

function isProject(dir: string): boolean {
  let text: string;
  try {
    text = readFileSync(join(dir, "package.json"), "utf8");
  } catch {
    return false;
  }
  if (existsSync(join(dir, "src", "server.ts"))) return true;
  try {
    const manifest: unknown = JSON.parse(text);
    return typeof manifest === "object" && manifest !== null && "mcp-gen" in manifest;
  } catch {
    // A package.json that is not JSON marks no project; the walk goes on above it.
    return false;
  }
}

/** The project root for a generator: a folder with package.json and src/server.ts. */
export function requireProject(dir: string): string {
  if (!existsSync(join(dir, "package.json")) || !existsSync(join(dir, "src", "server.ts"))) {
    throw new CliError(`${dir} is not a project made by create-mcp-handler (no package.json and src/server.ts)`, {
      hint: "run this inside the project, or pass --project <dir>",
    });
  }
  return dir;
}

/**
 * Runs a generator that edits the project in `dir` (it reads files, then writes its
 * changes) while holding the project's lock, so that concurrent runs take turns and each
 * reads what the previous one wrote. A dry run writes nothing and takes no lock.
 */
export function editProject<T>(dir: string, dryRun: boolean, edit: () => Promise<T>): Promise<T> {
  if (dryRun) return edit();
  return withFolderLock(requireProject(dir), edit);
}

/**
 * Formats new files with the project's prettier config, refuses to replace existing ones
 * without `force`, and writes new and edited files together, all or nothing. Edited files
 * are written as given: they keep the user's own formatting.
 */
export async function applyFiles(root: string, created: readonly PlannedFile[], edited: readonly PlannedFile[], options: ApplyOptions): Promise<ApplyResult> {
  refuseExisting(root, created, options.force);
  const formatted = await formatFiles(root, created);
  const result = { created: formatted.map((file) => file.path), edited: edited.map((file) => file.path), dryRun: options.dryRun };
  if (!options.dryRun) writeFilesAtomically(root, [...formatted, ...edited]);
  return result;
}

/** The lines a command prints for an ApplyResult. */
export function describeResult(result: ApplyResult): string {
  const verb = result.dryRun ? "would " : "";
  const lines = [...result.created.map((path) => `${verb}create ${path}`), ...result.edited.map((path) => `${verb}update ${path}`)];
  return `${lines.join("\n")}\n`;
}

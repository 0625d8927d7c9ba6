import { resolve } from "node:path";
import type { Argv } from "yargs";
import { describeResult, editProject, findProject, type ApplyResult } from "../scaffold/apply.js";

/** The options of every command that adds files to a project. */
export interface ProjectEditArgs {
  project: string;
  force: boolean;
  "dry-run": boolean;
}

export function withProjectEditOptions<T>(yargs: Argv<T>): Argv<T & ProjectEditArgs> {
  return yargs
    .option("project", { type: "string", default: ".", describe: "the project folder, or any folder inside it" })
    .option("force", { type: "boolean", default: false, describe: "overwrite existing files" })
    .option("dry-run", { type: "boolean", default: false, describe: "list what would be written" });
}

/**
 * Runs a generator on the project holding --project (the current folder by default; see
 * `findProject`) under the project's lock (see `editProject`) and prints each file it
 * wrote, or with --dry-run would write.
 */
export async function runProjectEdit(
  args: ProjectEditArgs,
  generate: (options: { project: string; force: boolean; dryRun: boolean }) => Promise<ApplyResult>,
): Promise<ApplyResult> {
  const options = { project: findProject(resolve(args.project)), force: args.force, dryRun: args["dry-run"] };
  const result = await editProject(options.project, options.dryRun, () => generate(options));
  process.stdout.write(describeResult(result));
  return result;
}

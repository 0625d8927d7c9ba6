import { spawnSync } from "node:child_process";
import { relative } from "node:path";
import { CliError } from "../errors.js";
import type { CreateOptions } from "./create-options.js";
import { planProject } from "./project.js";
import { writeProjectFolder } from "./write.js";

export interface CreateResult {
  /** Paths written (or, with dryRun, that would be), relative to the project. */
  files: string[];
  installed: boolean;
  gitInitialised: boolean;
  /** The exact commands to run next, in order. */
  nextSteps: string[];
}

/** Creates the project described by `options`; `log` receives progress lines. */
export async function createProject(options: CreateOptions, cwd: string, log: (line: string) => void = () => {}): Promise<CreateResult> {
  const files = await planProject(options);
  const paths = files.map((file) => file.path);
  const steps = (installed: boolean) => nextSteps(options, cwd, installed);
  if (options.dryRun) return { files: paths, installed: false, gitInitialised: false, nextSteps: steps(false) };
  writeProjectFolder(options.dir, files, options.overwrite);
  log(`wrote ${files.length} files to ${options.dir}`);
  const gitInitialised = options.git && run("git", ["init", "--quiet"], options.dir, log);
  const installed = options.install && installDependencies(options, log);
  return { files: paths, installed, gitInitialised, nextSteps: steps(installed) };
}

function installDependencies(options: CreateOptions, log: (line: string) => void): boolean {
  log(`installing dependencies with ${options.pm} ...`);
  if (!run(options.pm, ["install"], options.dir, log)) {
    throw new CliError(`\`${options.pm} install\` failed in ${options.dir}; the project files are in place`, {
      hint: `fix the problem above, then run \`${options.pm} install\` there`,
    });
  }
  return true;
}

/** Runs a command with its output on stderr; false when it is missing or fails. */
function run(command: string, args: string[], cwd: string, log: (line: string) => void): boolean {
  const result = spawnSync(command, args, { cwd, stdio: ["ignore", process.stderr, process.stderr] });
  if (result.error) log(`could not run ${command}: ${result.error.message}`);
  return result.status === 0;
}

function nextSteps(options: CreateOptions, cwd: string, installed: boolean): string[] {
  const where = relative(cwd, options.dir) || ".";
  const pm = options.pm;
  const steps = where === "." ? [] : [`cd ${/\s/.test(where) ? JSON.stringify(where) : where}`];
  if (!installed) steps.push(pm === "yarn" ? "yarn" : `${pm} install`);
  steps.push(`${pm} test`, `${pm} start`);
  return steps;
}

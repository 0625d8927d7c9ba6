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
  /** Whether the scaffold is the repository's first commit. */
  gitCommitted: boolean;
  /** The exact commands to run next, in order. */
  nextSteps: string[];
}

/** Creates the project described by `options`; `log` receives progress lines. */
export async function createProject(options: CreateOptions, cwd: string, log: (line: string) => void = () => {}): Promise<CreateResult> {
  const files = await planProject(options);
  const paths = files.map((file) => file.path);
  const steps = (installed: boolean) => nextSteps(options, cwd, installed);
  if (options.dryRun) return { files: paths, installed: false, gitInitialised: false, gitCommitted: false, nextSteps: steps(false) };
  writeProjectFolder(options.dir, files, options.overwrite);
  log(`wrote ${files.length} files to ${options.dir}`);
  const gitInitialised = options.git && run("git", ["init", "--quiet"], options.dir, log);
  // Installed before the first commit, so that the commit holds the lockfile the install
  // wrote: a clone then installs the same versions (`npm ci` needs the lockfile). A failed
  // install still leaves the scaffold committed before its error is reported.
  const installed = options.install && installDependencies(options, log);
  const gitCommitted = gitInitialised && commitScaffold(options.dir, cwd, log);
  if (options.install && !installed) {
    throw new CliError(`\`${options.pm} install\` failed in ${options.dir}; the project files are in place`, {
      hint: `fix the problem above, then run \`${options.pm} install\` there`,
    });
  }
  return { files: paths, installed, gitInitialised, gitCommitted, nextSteps: steps(installed) };
}

/** Who the first commit is by when the user has no git identity configured. */
const FALLBACK_IDENTITY = { name: "create-mcp-handler", email: "create-mcp-handler@users.noreply.invalid" };

/**
 * Commits the scaffold as the repository's first commit. The user's identity is used when
 * git has one; a missing name or email is supplied for this commit only (-c, never written
 * to their config). A failure (a hook, signing) leaves the files uncommitted with one line
 * saying how to commit: it never fails the create.
 */
function commitScaffold(dir: string, cwd: string, log: (line: string) => void): boolean {
  const configured = configuredIdentity(dir);
  const identity = [
    ...(configured.name ? [] : ["-c", `user.name=${FALLBACK_IDENTITY.name}`]),
    ...(configured.email ? [] : ["-c", `user.email=${FALLBACK_IDENTITY.email}`]),
  ];
  const quiet = { cwd: dir, stdio: "pipe", encoding: "utf8" } as const;
  // Every file counts as "big" for this add alone, so git streams them into one pack instead
  // of one loose object (and often a new directory) each: about a quarter of the time, for
  // the same commit. Later commits and `git gc` are unaffected.
  const added = spawnSync("git", ["-c", "core.bigFileThreshold=1", "add", "--all"], quiet);
  const committed =
    added.status === 0 && spawnSync("git", [...identity, "commit", "--quiet", "-m", "Initial commit from create-mcp-handler"], quiet).status === 0;
  if (!committed) {
    const where = relative(cwd, dir) || ".";
    log(`note: git could not make the first commit; to make it: cd ${where} && git add --all && git commit -m "Initial commit"`);
  } else if (identity.length > 0) {
    log(
      `note: the first commit is by ${FALLBACK_IDENTITY.name} (git has no user.name or user.email); once you set them, \`git commit --amend --reset-author\` makes it yours`,
    );
  }
  return committed;
}

/** Whether git has a user name and email for `dir`, from the environment or one `git config` call for both. */
function configuredIdentity(dir: string): { name: boolean; email: boolean } {
  const fromEnv = { name: process.env.GIT_AUTHOR_NAME !== undefined, email: process.env.GIT_AUTHOR_EMAIL !== undefined };
  if (fromEnv.name && fromEnv.email) return fromEnv;
  const listed = spawnSync("git", ["config", "--get-regexp", "^user\\.(name|email)$"], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const keys = new Set((listed.stdout ?? "").split("\n").map((line) => line.split(" ", 1)[0]));
  return { name: fromEnv.name || keys.has("user.name"), email: fromEnv.email || keys.has("user.email") };
}

/** Whether the package manager's install succeeded. */
function installDependencies(options: CreateOptions, log: (line: string) => void): boolean {
  log(`installing dependencies with ${options.pm} ...`);
  return run(options.pm, ["install"], options.dir, log);
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

/**
 * Whether the project's last build compiled its sources as they are now, as the build
 * itself records it: the scaffold's tsconfig is `incremental`, so tsc keeps each source's
 * content hash (and whether the build had errors) in dist/.tsbuildinfo. Asking the
 * project's own tsc (`tsc -b --dry`) reads that record with tsc's own hashing; comparing
 * file times instead refuses a current build, because an incremental tsc leaves an
 * output untouched when its source was saved without a change or only its imports changed.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { projectTsc } from "../dev/build-watch.js";
import { CliError } from "../errors.js";

/** Bounds the dry build: it reads the record and hashes the sources, never compiles. */
const DRY_BUILD_TIMEOUT_MS = 60_000;

/**
 * tsc's verdict on a current build: "Project 'tsconfig.json' is up to date because ...",
 * or "... is up to date but needs to update timestamps ..." when a source was saved
 * unchanged (its recorded hash still matches).
 */
const UP_TO_DATE = /^.*Project '[^']*' is up to date\b/m;
/** tsc's reason otherwise: "Project 'tsconfig.json' is out of date because ...". */
const OUT_OF_DATE = /Project '[^']*' is out of date because (.*)$/m;

/**
 * undefined when the last build is current, else why not, in tsc's words. A folder with no
 * tsconfig.json is not built by tsc: it keeps no record to read, and its dist/ is taken as it is.
 */
export function whyBuildIsStale(project: string, tsconfig = "tsconfig.json"): string | undefined {
  if (!existsSync(join(project, tsconfig))) return undefined;
  const run = spawnSync(process.execPath, [projectTsc(project, "mcp-gen client"), "-b", tsconfig, "--dry", "--verbose", "--locale", "en"], {
    cwd: project,
    encoding: "utf8",
    timeout: DRY_BUILD_TIMEOUT_MS,
  });
  const said = `${run.stdout ?? ""}${run.stderr ?? ""}`;
  if (run.status === 0 && UP_TO_DATE.test(said)) return undefined;
  const reason = OUT_OF_DATE.exec(said)?.[1]?.replace(/\.$/, "");
  if (reason !== undefined) return `the last build is not current: ${reason}`;
  const detail = run.error?.message ?? said.trim().split("\n").at(-1) ?? `exit ${run.status}`;
  throw new CliError(`could not ask the project's tsc whether its build is current: ${detail}`, {
    hint: "run `npm run build` in the project, or pass --from-url for a running server",
  });
}

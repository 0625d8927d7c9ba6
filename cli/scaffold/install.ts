/**
 * The project's own package manager, run by a generator that cannot go on without a package
 * the project does not have yet (`mcp-gen app` reads the schema its extension package
 * publishes). `create` installs with the manager it was told (`--pm`); a project made by it
 * holds that manager's lockfile afterwards, which is how a later command tells it.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { PackageManager } from "./project.js";

/** The lockfile each manager writes, pnpm's and yarn's first: npm is what a project without one uses. */
const LOCKFILES: readonly (readonly [string, PackageManager])[] = [
  ["pnpm-lock.yaml", "pnpm"],
  ["yarn.lock", "yarn"],
  ["package-lock.json", "npm"],
];

export function projectPackageManager(root: string): PackageManager {
  return LOCKFILES.find(([file]) => existsSync(join(root, file)))?.[1] ?? "npm";
}

/**
 * `<pm> install` in `root`, its output kept: a failure (offline, most often) is told by the
 * caller in one line, and the manager's own report is one `<pm> install` away.
 */
export function installIn(root: string, pm: PackageManager): boolean {
  const result = spawnSync(pm, ["install"], { cwd: root, stdio: "ignore" });
  return result.error === undefined && result.status === 0;
}

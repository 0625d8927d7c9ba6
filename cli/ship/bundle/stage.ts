/**
 * The project's production dependencies, installed where they cannot disturb anything: a
 * temporary staging folder holding package.json (without devDependencies or scripts) and the
 * project's lockfile, where `npm install --omit=dev` runs from the cache first. The project's
 * own node_modules, which holds its dev tools too (and may be a link to a shared install), is
 * never read or written.
 *
 * A `file:` dependency (a vendored tarball) is given by its absolute path, since the staging
 * folder is elsewhere; `--install-links` copies a linked folder in rather than linking out
 * of the bundle.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CliError } from "../../errors.js";

/** How long npm may take to install the production dependencies. */
export const INSTALL_TIMEOUT_MS = 300_000;
const LOCKFILES = ["package-lock.json", "npm-shrinkwrap.json"];
const DEPENDENCY_FIELDS = ["dependencies", "optionalDependencies"] as const;

export interface Staging {
  /** The folder holding node_modules/ with the production dependencies (absent when there are none). */
  readonly dir: string;
  readonly remove: () => void;
}

export function stageProductionDependencies(projectDir: string, packageJson: Readonly<Record<string, unknown>>): Staging {
  const dir = mkdtempSync(join(tmpdir(), "mcp-gen-bundle-"));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    writeFileSync(join(dir, "package.json"), `${JSON.stringify(productionManifest(projectDir, packageJson), null, 2)}\n`);
    for (const lockfile of LOCKFILES) if (existsSync(join(projectDir, lockfile))) copyFileSync(join(projectDir, lockfile), join(dir, lockfile));
    if (hasDependencies(packageJson)) install(dir);
    return { dir, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** package.json as the bundle's install needs it: no dev dependencies to resolve, no scripts of the project's to run. */
function productionManifest(projectDir: string, packageJson: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { devDependencies: _dev, scripts: _scripts, workspaces: _workspaces, ...kept } = packageJson;
  const rest: Record<string, unknown> = { ...kept };
  for (const field of DEPENDENCY_FIELDS) {
    const specs = rest[field] as Record<string, string> | undefined;
    if (specs === undefined) continue;
    rest[field] = Object.fromEntries(
      Object.entries(specs).map(([name, spec]) => [name, spec.startsWith("file:") ? `file:${resolve(projectDir, spec.slice("file:".length))}` : spec]),
    );
  }
  return rest;
}

function hasDependencies(packageJson: Readonly<Record<string, unknown>>): boolean {
  return DEPENDENCY_FIELDS.some((field) => Object.keys((packageJson[field] as object | undefined) ?? {}).length > 0);
}

function install(dir: string): void {
  const args = ["install", "--omit=dev", "--prefer-offline", "--install-links", "--no-audit", "--no-fund", "--loglevel=error"];
  const run = spawnSync(process.platform === "win32" ? "npm.cmd" : "npm", args, {
    cwd: dir,
    encoding: "utf8",
    timeout: INSTALL_TIMEOUT_MS,
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
  if (run.error !== undefined || run.status !== 0) {
    const why = run.error?.message ?? (run.stderr.trim().split("\n").slice(-5).join("\n") || `exit ${run.status}`);
    throw new CliError(`npm install --omit=dev of the production dependencies failed: ${why}`, {
      hint: "check that npm can reach the registry (or its cache holds the packages) and that package.json's dependencies install",
    });
  }
}

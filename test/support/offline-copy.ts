/**
 * A copy of this checkout's sources, run through tsx, for tests of what mcp-gen does with no
 * network: its schemas/lock.json points every pinned URL at a loopback port nothing listens
 * on (the pins' sha256 are kept, so the copies under generated/ stay current), and its
 * node_modules links every package of this checkout but the ones left out, as a project's
 * install of mcp-gen lacks mcp-gen's development packages.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PINNED_COPIES } from "../../cli/generate/pinned-copies.js";
import { freePort } from "./ports.js";
import { repoRoot } from "./schemas.js";

const tsx = import.meta.resolve("tsx");

export interface OfflineCopy {
  root: string;
  /** The base every pinned URL now starts with. */
  unreachable: string;
  run(cli: "main" | "create", args: string[], cwd: string, env?: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string };
}

export async function offlineCopy(dir: string, leftOut: readonly string[] = []): Promise<OfflineCopy> {
  const root = join(dir, "mcp-gen");
  // Without the pinned schemas a build of this checkout may have stored: a test gives the copy those it should carry.
  const carried = join(repoRoot, PINNED_COPIES);
  for (const entry of ["package.json", "cli", "generated", "templates", "schemas", "packages"]) {
    cpSync(join(repoRoot, entry), join(root, entry), { recursive: true, filter: (source) => source !== carried });
  }
  const unreachable = `http://127.0.0.1:${await freePort()}/`;
  const lockPath = join(root, "schemas", "lock.json");
  const lock = JSON.parse(readFileSync(lockPath, "utf8")) as { revisions: Record<string, { url: string }> };
  for (const pin of Object.values(lock.revisions)) pin.url = pin.url.replace(/^https:\/\/[^/]+\//, unreachable);
  writeFileSync(lockPath, JSON.stringify(lock, null, 2));
  linkModules(join(repoRoot, "node_modules"), join(root, "node_modules"), "", new Set(leftOut));
  return {
    root,
    unreachable,
    run(cli, args, cwd, env = {}) {
      const run = spawnSync(process.execPath, ["--import", tsx, join(root, "cli", `${cli}.ts`), ...args], {
        cwd,
        encoding: "utf8",
        timeout: 240_000,
        env: { ...process.env, ...env },
      });
      return { status: run.status, stdout: run.stdout, stderr: run.stderr };
    },
  };
}

/** `to` holds a link to each entry of `from` (a scope's folder is made and linked into) but those left out. */
function linkModules(from: string, to: string, scope: string, leftOut: ReadonlySet<string>): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const name = `${scope}${entry.name}`;
    if (leftOut.has(name)) continue;
    const scoped = entry.name.startsWith("@") && [...leftOut].some((left) => left.startsWith(`${name}/`));
    if (scoped) linkModules(join(from, entry.name), join(to, entry.name), `${name}/`, leftOut);
    else symlinkSync(join(from, entry.name), join(to, entry.name));
  }
}

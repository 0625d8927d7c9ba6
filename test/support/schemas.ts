import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { download } from "../../cli/generate/download.js";
import { sha256Hex } from "../../cli/generate/load.js";

/** The project root (this file is test/support/schemas.ts). */
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

export type Revision = "2026-07-28" | "2025-11-25" | "2025-06-18" | "2025-03-26" | "2024-11-05" | "draft-2026-06-07";

/** Where the tests look for an upstream schema, in this order. Inputs, never copied into the repo. */
export interface SchemaSources {
  /** `$MCP_SCHEMAS_DIR`, when set: a folder holding `<revision>/schema.json`. */
  envDir: string | undefined;
  /** `../shared/schemas` beside the checkout (what CI uses; it has no internet). */
  sharedDir: string;
  /** The git-ignored download cache, `.tmp/schemas`. */
  cacheDir: string;
  /** Each revision's URL and sha256, as schemas/lock.json pins them. */
  pins: Readonly<Record<string, { url: string; sha256: string }>>;
  /** Bounds of one download (tests shorten them). */
  limits?: { maxBytes: number; timeoutMs: number };
}

const lock = JSON.parse(readFileSync(join(repoRoot, "schemas", "lock.json"), "utf8")) as { revisions: SchemaSources["pins"] };

export const defaultSources: SchemaSources = {
  envDir: process.env.MCP_SCHEMAS_DIR,
  sharedDir: join(repoRoot, "..", "shared", "schemas"),
  cacheDir: join(repoRoot, ".tmp", "schemas"),
  pins: lock.revisions,
};

/**
 * The path of one upstream schema: in `$MCP_SCHEMAS_DIR`, else `../shared/schemas`, else the
 * cache, else downloaded once from the pinned URL into the cache, kept only when its sha256
 * is the pinned one. With none of them, one line says which file is missing and the three
 * ways to provide it.
 */
export async function resolveSchema(revision: string, sources: SchemaSources): Promise<string> {
  const local = [sources.envDir, sources.sharedDir].filter((dir) => dir !== undefined).map((dir) => join(resolve(dir), revision, "schema.json"));
  const found = local.find((path) => existsSync(path));
  if (found) return found;
  const pin = sources.pins[revision];
  const cached = join(sources.cacheDir, revision, "schema.json");
  if (pin && existsSync(cached) && sha256Hex(readFileSync(cached)) === pin.sha256) return cached;
  let reason = `schemas/lock.json pins no ${revision}`;
  if (pin) {
    try {
      return await downloadVerified(pin, cached, sources.limits);
    } catch (error) {
      reason = (error as Error).message;
    }
  }
  throw new Error(
    `upstream schema ${revision}/schema.json not found (${reason}); provide it one of three ways: ` +
      `set MCP_SCHEMAS_DIR to a folder holding ${revision}/schema.json, put it at ${local.at(-1)}, ` +
      `or let the tests download it once from the URL pinned in schemas/lock.json into ${sources.cacheDir}`,
  );
}

async function downloadVerified(pin: { url: string; sha256: string }, target: string, limits?: SchemaSources["limits"]): Promise<string> {
  const bytes = await download(pin.url, limits);
  const sha256 = sha256Hex(bytes);
  if (sha256 !== pin.sha256) throw new Error(`${pin.url} has sha256 ${sha256}, not the pinned ${pin.sha256}; not cached`);
  mkdirSync(dirname(target), { recursive: true });
  const temp = `${target}.tmp-${process.pid}`;
  writeFileSync(temp, bytes);
  renameSync(temp, target); // atomic: two test files downloading at once both end with a whole file
  return target;
}

/** Every pinned revision, resolved once when the first test file imports this module. */
const resolved = new Map<string, string | Error>();
for (const revision of Object.keys(lock.revisions)) {
  resolved.set(revision, await resolveSchema(revision, defaultSources).catch((error: Error) => error));
}

/** The path of one upstream schema, e.g. schemaPath("2026-07-28"); throws the one-line message when none is reachable. */
export function schemaPath(revision: Revision): string {
  const path = resolved.get(revision);
  if (path === undefined || path instanceof Error) throw path ?? new Error(`schemas/lock.json pins no ${revision}`);
  return path;
}

/** The one-line reason of the first pinned revision no source provides; undefined when every one is reachable. */
export function firstUnreachableSchema(): string | undefined {
  for (const path of resolved.values()) if (path instanceof Error) return path.message;
  return undefined;
}

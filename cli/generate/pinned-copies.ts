/**
 * The pinned schemas a built mcp-gen carries, so that the revisions it ships regenerate with
 * no network (`mcp-gen app` adding an extension to one, a `create --revisions` that needs a
 * folder made). `npm run build` stores each under schemas/pinned/<revision>/schema.json,
 * from $MCP_SCHEMAS_DIR or the pinned URL; the folder is git-ignored (upstream schemas are
 * never part of this repository) and packed with the package. A copy is used only while its
 * bytes are the pinned ones.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../toolbox/package.js";
import { writeFilesAtomically } from "../toolbox/write.js";
import { sha256Hex } from "./load.js";
import type { Lock } from "./verify.js";

export const PINNED_COPIES = "schemas/pinned";

const copyPath = (revision: string, root = packageRoot()) => join(root, PINNED_COPIES, revision, "schema.json");

/** The carried copy of a pinned revision's schema; undefined when there is none, or its bytes are not the pinned ones. */
export function pinnedCopy(revision: string, lock: Lock, root = packageRoot()): string | undefined {
  const pin = lock.revisions[revision];
  const path = copyPath(revision, root);
  if (pin === undefined || !existsSync(path)) return undefined;
  return sha256Hex(readFileSync(path)) === pin.sha256 ? path : undefined;
}

/** Where a revision's copy came from, or why it could not be stored. */
export type StoredCopy = { revision: string; from: string } | { revision: string; missing: string };

/**
 * Stores every revision the lock pins that has no good copy yet: read from
 * `$MCP_SCHEMAS_DIR/<revision>/schema.json` when that is set, else downloaded; kept only when
 * its sha256 is the pinned one. A revision that cannot be had is reported, not fatal: the
 * package then goes without it, as before.
 */
export async function storePinnedCopies(lock: Lock, env: NodeJS.ProcessEnv = process.env, root = packageRoot()): Promise<StoredCopy[]> {
  const stored: StoredCopy[] = [];
  for (const [revision, pin] of Object.entries(lock.revisions)) {
    if (pinnedCopy(revision, lock, root) !== undefined) continue;
    const location = env.MCP_SCHEMAS_DIR ? join(env.MCP_SCHEMAS_DIR, revision, "schema.json") : pin.url;
    try {
      // The network stack is loaded only for a download.
      const bytes = env.MCP_SCHEMAS_DIR ? readFileSync(location) : await (await import("./download.js")).download(location);
      const sha256 = sha256Hex(bytes);
      if (sha256 !== pin.sha256) throw new Error(`its sha256 is ${sha256}, the lock pins ${pin.sha256}`);
      mkdirSync(join(root, PINNED_COPIES, revision), { recursive: true });
      writeFilesAtomically(join(root, PINNED_COPIES, revision), [{ path: "schema.json", content: "", bytes }]);
      stored.push({ revision, from: location });
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      stored.push({ revision, missing: why.includes(location) ? why : `${location}: ${why}` });
    }
  }
  return stored;
}

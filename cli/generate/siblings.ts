import { readFileSync } from "node:fs";
import { join } from "node:path";
import { listFiles } from "../toolbox/files.js";
import { packageRoot } from "./paths.js";

/**
 * Outside a project, a runtime's legacy bindings name sibling folders (the initialize-era
 * revisions it serves) that nothing else writes: these are copies of the folders this
 * package ships under generated/, made from the same pinned schemas, so `--out` holds
 * everything its runtime imports and compiles on its own.
 */
export interface SiblingsReport {
  folders: string[];
  /** `--check`: "<folder>: <files>" for each sibling that differs from the shipped copy. */
  stale: string[];
}

export async function writeLegacySiblings(out: string, folders: readonly string[], check: boolean): Promise<SiblingsReport> {
  const { replaceFolder, staleFiles } = await import("./write.js");
  const stale: string[] = [];
  for (const folder of folders) {
    const shipped = join(packageRoot, "generated", folder);
    const files = new Map(listFiles(shipped).map((path) => [path, readFileSync(join(shipped, path), "utf8")]));
    const target = join(out, folder);
    if (check) {
      const differing = staleFiles(target, files);
      if (differing.length > 0) stale.push(`${target}: ${differing.join(", ")}`);
    } else await replaceFolder(target, files);
  }
  return { folders: [...folders], stale };
}

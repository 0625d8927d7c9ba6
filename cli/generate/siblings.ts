import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../errors.js";
import { readRegularFile } from "./files.js";
import { MANIFEST_FILE, parseManifest, staleOutputs } from "./manifest.js";
import { packageRoot } from "./paths.js";
import { listFiles } from "../toolbox/files.js";
import { sorted } from "../toolbox/sort.js";

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
  const stale: string[] = [];
  for (const folder of folders) {
    const shipped = join(packageRoot, "generated", folder);
    const target = join(out, folder);
    if (check) {
      const differing = staleAgainstShipped(target, shipped);
      if (differing.length > 0) stale.push(`${target}: ${differing.join(", ")}`);
    } else await (await import("./write.js")).replaceFolder(target, readFolder(shipped));
  }
  return { folders: [...folders], stale };
}

/**
 * The files of a copy that differ from the shipped folder, told by the shipped manifest's
 * hashes (and its own bytes for the copy's manifest), so that a `--check` reads no shipped file
 * but that manifest.
 */
function staleAgainstShipped(target: string, shipped: string): string[] {
  const manifestBytes = readRegularFile(join(shipped, MANIFEST_FILE));
  const manifest = parseManifest(manifestBytes);
  if (manifestBytes === undefined || manifest === undefined) {
    throw new CliError(`${join(shipped, MANIFEST_FILE)} is missing or not JSON: this installation of mcp-gen is damaged`, { hint: "install mcp-gen again" });
  }
  const manifestCopied = readRegularFile(join(target, MANIFEST_FILE))?.equals(manifestBytes) ?? false;
  return sorted([...staleOutputs(target, manifest.outputs), ...(manifestCopied ? [] : [MANIFEST_FILE])]);
}

function readFolder(dir: string): Map<string, string> {
  return new Map(listFiles(dir).map((path) => [path, readFileSync(join(dir, path), "utf8")]));
}

import { lstatSync, readFileSync } from "node:fs";

/** The bytes of a regular file; undefined for anything else (missing, a folder, a link). */
export function readRegularFile(path: string): Buffer | undefined {
  try {
    return lstatSync(path).isFile() ? readFileSync(path) : undefined;
  } catch {
    return undefined;
  }
}

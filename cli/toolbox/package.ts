import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CliError } from "../errors.js";

/** The fields of a package.json the CLI reads. */
export interface PackageManifest {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** The package.json in `dir`, parsed; a one-line error when it is missing or not JSON. */
export function readPackageJson(dir: string): PackageManifest {
  const path = join(dir, "package.json");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`, { hint: "run this where the package.json is" });
  }
  try {
    const manifest: unknown = JSON.parse(text);
    if (typeof manifest === "object" && manifest !== null && !Array.isArray(manifest)) return manifest as PackageManifest;
  } catch {
    // reported below, with the file's name
  }
  throw new CliError(`${path} is not a JSON object`, { hint: "fix the file's syntax" });
}

const OWN_NAME = "mcp-gen";
let ownRoot: string | undefined;

/**
 * The folder of this package (its package.json, templates/, generated/): the nearest folder
 * above this module whose package.json is mcp-gen's. It works from the sources
 * (cli/toolbox/), the build (dist/cli/toolbox/) and a copy under someone's node_modules.
 */
export function packageRoot(): string {
  ownRoot ??= findPackageRoot(dirname(fileURLToPath(import.meta.url)));
  return ownRoot;
}

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json")) && readPackageJson(dir).name === OWN_NAME) return dir;
    if (dirname(dir) === dir) throw new Error(`${OWN_NAME}'s package.json not found above ${start}`);
  }
}

/**
 * What goes into a bundle besides its manifest: package.json (its "type" tells Node how to
 * load the built files), the built server under dist/ (the tests' output and tsc's build
 * info left out), and the staged production dependencies under node_modules/ (their `.bin`
 * links left out: the server never runs them). Walking stops at the bounds, so a stray huge
 * folder is a clear error rather than a bundle nobody can install.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../../errors.js";
import type { ZipEntry } from "./zip.js";

export interface BundleBounds {
  /** Files at most, manifest included. */
  readonly maxFiles: number;
  /** Bytes at most, summed over the files before compression. */
  readonly maxBytes: number;
}

export const DEFAULT_BUNDLE_BOUNDS: BundleBounds = { maxFiles: 20_000, maxBytes: 256 * 1024 * 1024 };

/** Paths under dist/ (relative to it) that are not the server. */
const LEFT_OUT_OF_DIST = [/^test(?:\/|$)/, /\.tsbuildinfo$/];
const LEFT_OUT_OF_MODULES = [/(?:^|\/)\.bin(?:\/|$)/, /^\.package-lock\.json$/];

export interface CollectedFiles {
  readonly entries: ZipEntry[];
  readonly bytes: number;
}

/** The bundle's files in a fixed order: manifest.json, package.json, dist/, node_modules/. */
export function collectBundleFiles(
  projectDir: string,
  stagedModules: string,
  manifest: Buffer,
  bounds: BundleBounds = DEFAULT_BUNDLE_BOUNDS,
): CollectedFiles {
  const tally = { files: 1, bytes: manifest.length };
  const entries: ZipEntry[] = [{ name: "manifest.json", source: { data: manifest }, mode: 0o644 }];
  const add = (name: string, path: string, size: number, mode: number) => {
    tally.files += 1;
    tally.bytes += size;
    if (tally.files > bounds.maxFiles) throw tooBig(`more than ${bounds.maxFiles} files`, "--max-files");
    if (tally.bytes > bounds.maxBytes) throw tooBig(`more than ${bounds.maxBytes} bytes before compression`, "--max-bytes");
    entries.push({ name, source: { path }, mode: mode & 0o777 });
  };
  const packageJson = lstatSync(join(projectDir, "package.json"));
  add("package.json", join(projectDir, "package.json"), packageJson.size, packageJson.mode);
  walk(join(projectDir, "dist"), "dist", LEFT_OUT_OF_DIST, add);
  walk(stagedModules, "node_modules", LEFT_OUT_OF_MODULES, add);
  return { entries, bytes: tally.bytes };
}

function tooBig(what: string, option: string): CliError {
  return new CliError(`the bundle would hold ${what}`, {
    hint: `check what dist/ and the production dependencies hold (devDependencies are left out); ${option} raises the bound`,
  });
}

/** Every regular file under `root`, sorted; a symbolic link is refused, since it could point out of the bundle. */
function walk(root: string, prefix: string, leftOut: readonly RegExp[], add: (name: string, path: string, size: number, mode: number) => void): void {
  const pending: string[] = [""];
  while (pending.length > 0) {
    const relative = pending.pop()!;
    let names: string[];
    try {
      names = readdirSync(join(root, relative)).sort().reverse();
    } catch {
      if (relative === "") return; // no such folder: nothing to add
      throw new CliError(`cannot read ${prefix}/${relative}`);
    }
    const files: string[] = [];
    for (const name of names) {
      const path = relative === "" ? name : `${relative}/${name}`;
      if (leftOut.some((pattern) => pattern.test(path))) continue;
      const stat = lstatSync(join(root, path));
      if (stat.isDirectory()) pending.push(path);
      else if (stat.isFile()) files.push(path);
      else throw new CliError(`${prefix}/${path} is not a regular file or folder (a link?): a bundle holds copies only`);
    }
    for (const path of files.reverse()) {
      const stat = lstatSync(join(root, path));
      add(`${prefix}/${path}`, join(root, path), stat.size, stat.mode);
    }
  }
}

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The folder holding this package's package.json, templates/ and generated/. */
export function packageRoot(): string {
  // Walk up from this module: it runs from cli/scaffold (tsx) or dist/cli/scaffold (built).
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "templates")) || !existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find the package root (templates/ beside package.json)");
    dir = parent;
  }
  return dir;
}

export interface PackageInfo {
  name: string;
  version: string;
}

export function packageInfo(root = packageRoot()): PackageInfo {
  const { name, version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as PackageInfo;
  return { name, version };
}

/**
 * How a new project should depend on this generator. From the registry: a caret range on
 * this version. From a local checkout: `file:` that checkout. From a packed tarball run
 * with `npx ./pkg.tgz`: the `file:` spec npx recorded in the package.json of its install
 * folder, so the project installs the very same tarball without the registry.
 */
export function generatorDependencySpec(root = packageRoot()): string {
  const { name, version } = packageInfo(root);
  const marker = `${sep}node_modules${sep}`;
  const at = root.lastIndexOf(marker);
  if (at < 0) return `file:${root}`;
  const installer = join(root.slice(0, at), "package.json");
  if (existsSync(installer)) {
    const manifest = JSON.parse(readFileSync(installer, "utf8")) as Record<string, Record<string, string> | undefined>;
    const spec = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
    if (spec?.startsWith("file:")) return `file:${resolve(dirname(installer), spec.slice("file:".length))}`;
  }
  return `^${version}`;
}

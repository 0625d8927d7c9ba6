import { existsSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { CliError } from "../errors.js";
import { packageRoot, readPackageJson } from "../toolbox/package.js";

export interface PackageInfo {
  name: string;
  version: string;
}

/** This generator's name and version, as a new project records them. */
export function packageInfo(root = packageRoot()): PackageInfo {
  const { name, version } = readPackageJson(root);
  if (!name || !version) throw new CliError(`${join(root, "package.json")} has no name or version`, { hint: "reinstall mcp-gen" });
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
  const installer = root.slice(0, at);
  if (existsSync(join(installer, "package.json"))) {
    const manifest = readPackageJson(installer);
    const spec = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
    if (spec?.startsWith("file:")) return `file:${resolve(installer, spec.slice("file:".length))}`;
  }
  return `^${version}`;
}

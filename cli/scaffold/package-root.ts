import { existsSync, readFileSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { CliError } from "../errors.js";
import { packageRoot, readPackageJson } from "../toolbox/package.js";
import { PACKED_BUILD, PACKED_RUNTIME, packTarball } from "../toolbox/tarball.js";

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

/** The folder a new project keeps a packed generator in (npm leaves it alone; it moves with the project). */
export const VENDOR_FOLDER = "vendor";

/** How a new project depends on this generator, and the tarball it keeps when that is how. */
export interface GeneratorDependency {
  spec: string;
  /** `vendor/<name>-<version>.tgz`, written into the project, which `spec` names relatively. */
  vendored?: { path: string; bytes: () => Buffer };
}

/**
 * How a new project should depend on this generator. From the registry: a caret range on
 * this version. From a built checkout, or a packed tarball run with `npx ./pkg.tgz` (the
 * `file:` spec npx recorded in its install folder's package.json): a tarball kept in the
 * project, `file:vendor/<name>-<version>.tgz`, so the project installs the very same
 * generator without the registry, wherever the folder is moved (the tarball npx installed
 * is copied when it is still there, else this package is packed; a checkout's is the one
 * `npm run build` packed, `dist/package.tgz`, else packed now). From a checkout that was
 * not built (mcp-gen's own development, run from source): `file:` that checkout.
 */
export function generatorDependency(root = packageRoot()): GeneratorDependency {
  const { name, version } = packageInfo(root);
  const vendored = (bytes: () => Buffer) => vendoredAs({ name, version }, bytes);
  const marker = `${sep}node_modules${sep}`;
  const at = root.lastIndexOf(marker);
  if (at < 0) return existsSync(join(root, "dist", "cli", "main.js")) ? vendored(() => packedBuild(root)) : { spec: `file:${root}` };
  const installer = root.slice(0, at);
  if (existsSync(join(installer, "package.json"))) {
    const manifest = readPackageJson(installer);
    const spec = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
    if (spec?.startsWith("file:")) {
      const source = resolve(installer, spec.slice("file:".length));
      return vendored(() => (source.endsWith(".tgz") && existsSync(source) ? readFileSync(source) : packTarball(root)));
    }
  }
  return { spec: `^${version}` };
}

/** A dependency on a tarball kept in the project: `vendor/<name>-<version>.tgz`. */
function vendoredAs({ name, version }: PackageInfo, bytes: () => Buffer): GeneratorDependency {
  const path = `${VENDOR_FOLDER}/${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
  return { spec: `file:${path}`, vendored: { path, bytes } };
}

/** The runtime package's folder in this package: its package.json, src/ and, in a built checkout, dist/. */
export function runtimePackageRoot(root = packageRoot()): string {
  return join(root, "packages", "runtime");
}

/** The runtime package's name and version, which a new project depends on. */
export function runtimePackage(root = packageRoot()): PackageInfo {
  return packageInfo(runtimePackageRoot(root));
}

/**
 * How a new project depends on the runtime package: as it depends on this generator, from
 * the registry a caret range on its version; otherwise a tarball kept in vendor/ beside
 * the generator's, packed from the checkout's build of it, else the one this package carries
 * (dist/runtime.tgz, which `npm run build` writes and a packed mcp-gen includes).
 */
export function runtimeDependency(root = packageRoot()): GeneratorDependency {
  const runtime = runtimePackage(root);
  const generator = generatorDependency(root);
  if (!generator.spec.startsWith("file:")) return { spec: `^${runtime.version}` };
  return vendoredAs(runtime, () => runtimeTarball(root));
}

function runtimeTarball(root: string): Buffer {
  const folder = runtimePackageRoot(root);
  if (existsSync(join(folder, "dist", "index.js"))) return packTarball(folder);
  const carried = join(root, PACKED_RUNTIME);
  if (existsSync(carried)) return readFileSync(carried);
  throw new CliError(`the runtime package in ${folder} is not built, so a project cannot depend on it`, {
    hint: "run `npm run build` in mcp-gen's folder first",
  });
}

/** The tarball `npm run build` left in a checkout, else the checkout packed now (a build by bare tsc). */
function packedBuild(root: string): Buffer {
  const built = join(root, PACKED_BUILD);
  return existsSync(built) ? readFileSync(built) : packTarball(root);
}

/**
 * `mcp-gen prebundle`: the built server (dist/src/run.js, what `tsc` wrote) as one ES module,
 * dist/server.js, with its source map. A server made of a hundred modules spends most of its
 * start loading them; one module starts sooner, which matters to clients that give a stdio
 * server a second to answer. The project's src/main.ts loads it while no `tsc` has run since
 * it was written, and the modules otherwise, so a stale bundle is never served.
 *
 * What is bundled: the project's own code, its generated code and the runtime package. Every
 * other package (ajv, jose, zod...) stays an import, loaded from node_modules as before: they
 * are loaded lazily or are small, and several are CommonJS.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { Plugin } from "esbuild";
import { CliError } from "../errors.js";
import { isRuntimeFolder, readProjectConfig } from "../toolbox/project-config.js";
import { writeFilesAtomically } from "../toolbox/write.js";

/** The module that starts the server, what `tsc` writes for it, and the bundle made of that, relative to the project. */
const SOURCE_ENTRY = "src/run.ts";
const BUILT_ENTRY = "dist/src/run.js";
export const BUNDLE = "dist/server.js";

export interface PrebundleResult {
  /** The files written, relative to the project. */
  written: string[];
  /** The bundle's size in bytes. */
  bytes: number;
}

export async function prebundleServer(projectDir: string): Promise<PrebundleResult> {
  const config = readProjectConfig(projectDir);
  if (config === undefined) {
    throw new CliError(`${join(projectDir, "package.json")} has no "mcp-gen" key`, { hint: "run this in a project made by create-mcp-handler" });
  }
  if (!existsSync(join(projectDir, BUILT_ENTRY))) {
    if (!existsSync(join(projectDir, SOURCE_ENTRY))) {
      throw new CliError(`this project has no ${SOURCE_ENTRY}, the server prebundle bundles`, {
        hint: "a project made by an earlier create-mcp-handler starts from its modules; drop prebundle from its build script",
      });
    }
    throw new CliError(`${BUILT_ENTRY} is not built`, { hint: "npm run build runs tsc and then prebundle" });
  }
  const runtimePackage = config.runtime !== undefined && !isRuntimeFolder(config.runtime) ? config.runtime : undefined;
  const { build } = await import("esbuild");
  const result = await build({
    absWorkingDir: projectDir,
    entryPoints: [BUILT_ENTRY],
    outfile: BUNDLE,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Less text to parse at each start (a few ms); names are kept, so stacks still read, and
    // the map leads back through tsc's maps to src/*.ts (the log's "at src/…" places, and
    // node --enable-source-maps).
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: true,
    sourcesContent: false,
    write: false,
    logLevel: "silent",
    plugins: [otherPackagesExternal(runtimePackage), ownModuleUrls(projectDir)],
  }).catch((error: unknown) => {
    const first = (error as { errors?: { text: string; location?: { file: string; line: number } | null }[] }).errors?.[0];
    if (first === undefined) throw error;
    const where = first.location ? `${first.location.file}:${first.location.line}: ` : "";
    throw new CliError(`cannot bundle ${BUILT_ENTRY}: ${where}${first.text}`, { hint: "run tsc again, then mcp-gen prebundle" });
  });
  const files = result.outputFiles
    .map((file) => ({ path: relative(projectDir, file.path).split(sep).join("/"), content: "", bytes: file.contents }))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  writeFilesAtomically(projectDir, files);
  const bundle = files.find((file) => file.path === BUNDLE);
  return { written: files.map((file) => file.path), bytes: bundle?.bytes.byteLength ?? 0 };
}

/** Every bare import stays external but the runtime package's (and its subpaths). */
function otherPackagesExternal(runtime: string | undefined): Plugin {
  return {
    name: "other-packages-external",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith("node:")) return { path: args.path, external: true };
        const bundled = runtime !== undefined && (args.path === runtime || args.path.startsWith(`${runtime}/`));
        return bundled ? undefined : { path: args.path, external: true };
      });
    },
  };
}

/**
 * Inside the bundle, `import.meta.url` would name dist/server.js. A module that finds files
 * beside itself (the log finding the project's root, an app page finding src/apps/) gets its
 * own built file's URL instead, made from the bundle's at run time, so the project can move.
 * The rewrite is textual: a string in the project's code that spells `import.meta.url` changes too.
 */
function ownModuleUrls(projectDir: string): Plugin {
  const bundleFolder = join(projectDir, "dist");
  return {
    name: "own-module-urls",
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, async (args) => {
        const inProject = !relative(projectDir, args.path).split(sep).includes("node_modules");
        if (!inProject) return undefined;
        const source = await readFile(args.path, "utf8");
        if (!source.includes("import.meta.url")) return undefined;
        const own = relative(bundleFolder, args.path).split(sep).join("/");
        const url = `new URL(${JSON.stringify(own.startsWith(".") ? own : `./${own}`)}, import.meta.url).href`;
        return { contents: source.replaceAll("import.meta.url", url), loader: "js" };
      });
    },
  };
}

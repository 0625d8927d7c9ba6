/**
 * `mcp-gen bundle`: the project as an MCPB bundle (a `.mcpb` zip a client such as Claude
 * Desktop installs in one step), derived from the project and never assembled by hand. The
 * stages, one file each: what the source reads and serves (server-json's source-reads.ts),
 * the tools its built server lists (as `mcp-gen client` reads them), the manifest
 * (manifest.ts), the production dependencies in a staging folder (stage.ts), the files
 * (files.ts), and the zip (zip.ts).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { toolsFromProject } from "../../client/source.js";
import { CliError } from "../../errors.js";
import { servedTransports } from "../server-json/derive.js";
import { readProjectSources } from "../server-json/files.js";
import { readPackageJsonText } from "../server-json/identity.js";
import { readEnvironmentReads } from "../server-json/source-reads.js";
import { collectBundleFiles, DEFAULT_BUNDLE_BOUNDS, type BundleBounds } from "./files.js";
import { deriveManifest, ENTRY_POINT } from "./manifest.js";
import { stageProductionDependencies } from "./stage.js";
import { writeZip, type ZipEntry } from "./zip.js";

export interface BundleOptions {
  readonly projectDir: string;
  /** Where the bundle is written; default `<package>-<version>.mcpb` in the project. */
  readonly out?: string;
  readonly bounds?: BundleBounds;
}

export interface BundleReport {
  readonly path: string;
  readonly sha256: string;
  /** The zip's size in bytes, and what its files hold before compression. */
  readonly bytes: number;
  readonly contentBytes: number;
  readonly files: number;
  readonly tools: string[];
  /** The environment variables asked for as user_config. */
  readonly variables: string[];
  readonly notes: string[];
}

export async function runBundle(options: BundleOptions): Promise<BundleReport> {
  const { projectDir } = options;
  const packageJson = readPackageJsonText(projectDir).fields;
  for (const field of ["name", "version"]) {
    if (typeof packageJson[field] !== "string" || packageJson[field] === "") throw new CliError(`package.json has no "${field}"`, { hint: `set "${field}" in package.json` });
  }
  const reads = await readEnvironmentReads(readProjectSources(projectDir));
  const transports = servedTransports(reads.called);
  if (!transports.stdio) {
    throw new CliError("src/ does not call serveStdio: a bundle's server is started by the client over stdio", {
      hint: "bundle a project made with --transport stdio or both (mcp-gen transport can add stdio to an HTTP project)",
    });
  }
  if (!existsSync(join(projectDir, ENTRY_POINT))) {
    throw new CliError(`${ENTRY_POINT} does not exist: the bundle holds the built server`, { hint: "run `npm run build` in the project first" });
  }
  const { tools } = await toolsFromProject(projectDir);
  const { manifest, notes } = deriveManifest({ packageJson, servesHttp: transports.http, variables: reads.variables, tools });
  const path = resolve(projectDir, options.out ?? defaultFileName(packageJson));
  const staging = stageProductionDependencies(projectDir, packageJson);
  try {
    const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    const collected = collectBundleFiles(projectDir, join(staging.dir, "node_modules"), manifestBytes, options.bounds ?? DEFAULT_BUNDLE_BOUNDS);
    const written = zipped(path, collected.entries);
    const user = (manifest.user_config ?? {}) as Record<string, { title: string }>;
    return {
      path,
      sha256: createHash("sha256").update(readFileSync(path)).digest("hex"),
      bytes: written.bytes,
      contentBytes: collected.bytes,
      files: written.entries,
      tools: tools.map((tool) => tool.name),
      variables: Object.values(user).map((field) => field.title),
      notes,
    };
  } finally {
    staging.remove();
  }
}

/** The zip, or one error line naming the bound the format sets (zip64 is not written). */
function zipped(path: string, entries: readonly ZipEntry[]): { bytes: number; entries: number } {
  try {
    return writeZip(path, entries);
  } catch (error) {
    if (error instanceof RangeError) throw new CliError(`cannot write ${path}: ${error.message}`, { hint: "bundle fewer or smaller files" });
    throw error;
  }
}

/** `<name>-<version>.mcpb`, a scope's `@` and `/` made safe for a file name. */
function defaultFileName(packageJson: Readonly<Record<string, unknown>>): string {
  const name = String(packageJson.name).replace(/^@/, "").replace(/\//g, "-");
  return `${name}-${String(packageJson.version)}.mcpb`;
}

/**
 * `mcp-gen client`: writes one client file. In a project it goes to `<out>/client.ts` (the
 * project's generated folder) and binds the project's own tools; outside one, `--out` names
 * the file and `--generated` the folder `mcp-gen types` wrote. The file imports the client
 * entry of the runtime that serves the newest revision folder there (the project's runtime
 * package, or a copy beside the folder), so it compiles with the project. It is written only where no file is, or over one this command wrote.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { CliError } from "../errors.js";
import { findProject } from "../scaffold/apply.js";
import { readManifest, runtimePlacement } from "../generate/manifest.js";
import { isRuntimeFolder, readProjectConfig } from "../toolbox/project-config.js";
import { writeFilesAtomically } from "../toolbox/write.js";
import { CLIENT_HEADER_START, emitClientFile } from "./emit.js";
import type { LeftOut } from "./tool-schema.js";
import { toolsFromProject, toolsFromUrl, type ToolSource } from "./source.js";

export interface ClientCommandOptions {
  /** Where to look for a project (the current folder by default). */
  readonly cwd: string;
  readonly fromUrl?: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly out?: string | undefined;
  readonly generated?: string | undefined;
  /** In a project: list its tools as a caller whose token carries these scopes (see toolsFromProject). */
  readonly scopes?: readonly string[] | undefined;
}

export interface ClientFileReport {
  readonly path: string;
  readonly tools: readonly string[];
  readonly revision: string;
  readonly origin: string;
  /** Members left out of the tools' schemas: json-schema-to-typescript would have printed them as code. */
  readonly leftOut: readonly LeftOut[];
  /** Tool names the source listed more than once (bound once). */
  readonly duplicates: readonly string[];
}

export async function generateClient(options: ClientCommandOptions): Promise<ClientFileReport> {
  const project = projectAt(options.cwd);
  const place = placeOf(project, options);
  const owner = project ?? ownerOf(place.generated);
  const entry = runtimeEntry(place.generated, owner);
  refuseForeignFile(place.file);
  if (options.scopes !== undefined && (options.fromUrl !== undefined || project === undefined)) {
    throw new CliError("--scopes applies to a project's own tools", {
      hint: "with --from-url the server lists what the token in --header 'Authorization: Bearer ...' may see",
      exitCode: 2,
    });
  }
  const source: ToolSource =
    options.fromUrl !== undefined
      ? await toolsFromUrl(options.fromUrl, options.headers)
      : project !== undefined
        ? await toolsFromProject(project, options.scopes)
        : { tools: [], origin: "no tools" };
  const runtimeImport =
    entry.kept === undefined
      ? specifier(dirname(place.file), join(place.generated, entry.folder, "runtime", "client", "index.js"))
      : keptClientImport(entry.kept, owner!, place.file);
  const { content, leftOut, duplicates } = await emitClientFile({
    tools: source.tools,
    origin: source.origin,
    command: regenerateCommand(project, options, place),
    runtimeImport,
    revision: entry.revision,
  });
  writeFilesAtomically(dirname(place.file), [{ path: basename(place.file), content }]);
  const tools = [...new Set(source.tools.map((tool) => tool.name))];
  return { path: place.file, tools, revision: entry.revision, origin: source.origin, leftOut, duplicates };
}

function projectAt(cwd: string): string | undefined {
  try {
    return findProject(cwd);
  } catch (error) {
    if (error instanceof CliError) return undefined;
    throw error;
  }
}

/** The file to write and the generated folder it imports from. */
function placeOf(project: string | undefined, options: ClientCommandOptions): { file: string; generated: string } {
  if (project !== undefined) {
    const generated = options.generated !== undefined ? resolve(options.cwd, options.generated) : join(project, readProjectConfig(project)?.out ?? "generated");
    return { file: options.out !== undefined ? resolve(options.cwd, options.out) : join(generated, "client.ts"), generated };
  }
  if (options.out === undefined) {
    throw new CliError("outside a project, say where the client goes", {
      hint: "pass --out <file.ts> and --generated <the folder `mcp-gen types --out` wrote>",
      exitCode: 2,
    });
  }
  const file = resolve(options.cwd, options.out);
  return { file, generated: options.generated !== undefined ? resolve(options.cwd, options.generated) : dirname(file) };
}

/**
 * The newest `v<yymm>` folder under `generated` served by a runtime with the client entry, and
 * its revision: a copy beside it, or the runtime the project keeps (`kept`, its
 * "mcp-gen.runtime": the runtime package, or a folder of runtime source).
 */
function runtimeEntry(generated: string, project: string | undefined): { folder: string; revision: string; kept?: string } {
  const folders = existsSync(generated) ? readdirSync(generated).filter((name) => /^v\d{4}$/.test(name)) : [];
  const kept = project === undefined ? undefined : readProjectConfig(project)?.runtime;
  const keptHere = (name: string) => {
    const manifest = kept === undefined ? undefined : readManifest(join(generated, name));
    return manifest !== undefined && runtimePlacement(manifest) === "kept";
  };
  const withClient = folders.filter((name) => existsSync(join(generated, name, "runtime", "client", "index.ts")) || keptHere(name)).sort();
  const folder = withClient.at(-1);
  if (folder === undefined) {
    const why = folders.length === 0 ? "no revision folder" : `no runtime with a client in ${folders.join(", ")}`;
    throw new CliError(`${generated} has ${why}`, {
      hint: "run `npx mcp-gen types` (in a project) or `mcp-gen types --out <dir>` with this mcp-gen first, or pass --generated <dir>",
    });
  }
  const capabilities = readFileSync(join(generated, folder, "capabilities.ts"), "utf8");
  const revision = /PROTOCOL_VERSION\b[^"]*"([^"]+)"/.exec(capabilities)?.[1] ?? folder;
  return existsSync(join(generated, folder, "runtime")) ? { folder, revision } : { folder, revision, kept: kept! };
}

/** Outside a project, the project whose "mcp-gen.out" the generated folder is (its runtime may be kept elsewhere). */
function ownerOf(generated: string): string | undefined {
  const above = dirname(generated);
  const config = readProjectConfig(above);
  return config !== undefined && resolve(above, config.out) === generated ? above : undefined;
}

/** The client entry of the runtime a project keeps, as the client file imports it. */
function keptClientImport(kept: string, project: string, file: string): string {
  return isRuntimeFolder(kept) ? specifier(dirname(file), join(project, kept, "client", "index.js")) : `${kept}/client`;
}

function refuseForeignFile(file: string): void {
  if (!existsSync(file)) return;
  if (readFileSync(file, "utf8").startsWith(CLIENT_HEADER_START)) return;
  throw new CliError(`${file} exists and was not written by mcp-gen client; it is left as it is`, {
    hint: "move it away, or pass --out <another file>",
    exitCode: 2,
  });
}

/** A relative import specifier with `/` and a leading `./`. */
function specifier(fromDir: string, target: string): string {
  const path = relative(fromDir, target).split(sep).join("/");
  return path.startsWith(".") ? path : `./${path}`;
}

/** What the header says to run again (headers are never written down: they may hold secrets). */
function regenerateCommand(project: string | undefined, options: ClientCommandOptions, place: { file: string; generated: string }): string {
  const parts = ["npx mcp-gen client"];
  if (options.fromUrl !== undefined) parts.push(`--from-url ${options.fromUrl}`);
  const root = project ?? options.cwd;
  if (project === undefined || options.out !== undefined) parts.push(`--out ${relative(root, place.file).split(sep).join("/")}`);
  if (project === undefined || options.generated !== undefined) parts.push(`--generated ${relative(root, place.generated).split(sep).join("/") || "."}`);
  if (options.scopes !== undefined) parts.push(`--scopes ${options.scopes.join(",")}`);
  if (Object.keys(options.headers).length > 0) parts.push("--header ...");
  return parts.join(" ");
}

import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { generatorVersion, packageRoot } from "./paths.js";
import { sha256Hex } from "./load.js";
import { listFiles } from "../toolbox/files.js";
import { readRegularFile } from "./files.js";
import { sorted } from "../toolbox/sort.js";
import type { MapsIR, SchemaIR } from "./ir-model.js";

/**
 * Written with the output: what it was generated from (generator identity, schema hash,
 * runtime source hash) and the hash of every file. `--check` compares these by hashing alone,
 * without loading the code-generation libraries.
 */
export const MANIFEST_FILE = "mcp-gen.manifest.json";
/** The file every output with a runtime has. */
export const RUNTIME_ENTRY = "runtime/index.ts";

export interface ManifestInputs extends Partial<RuntimeInputs> {
  generator: string;
  revision: string;
  schemaSha256: string;
  /** The extension schemas merged in (`--extension`), in the order given; absent when none. */
  extensions?: Array<{ id: string; sha256: string }>;
  /** Where the runtime that serves the revision lives; absent for a revision no runtime serves (no listen stream). */
  runtime?: RuntimePlacement;
}

/**
 * Where the runtime serving a revision lives: `beside` it (a copy in its runtime/ folder,
 * bound to the legacy folders its inputs name), `kept` where the project's "mcp-gen.runtime"
 * says (the runtime package, or a folder of the runtime's source), or `none` (`--types-only`:
 * the project serves it with code of its own).
 */
export type RuntimePlacement = "beside" | "kept" | "none";

/**
 * What a previous release recorded instead of `runtime`: `typesOnly` when --types-only was
 * given (for any revision), `runtimeKept` when the project kept the runtime; a copy beside
 * the revision was told by its files alone.
 */
interface EarlierInputs {
  typesOnly?: true;
  runtimeKept?: true;
}

/**
 * The inputs only an output with a runtime has, so that a runtime edit leaves the output of
 * an initialize-era revision as it is.
 */
export interface RuntimeInputs {
  /** The hash of the runtime source it emits (runtimeSourceSha256 below). */
  runtimeSourceSha256: string;
  /** The sibling folders its legacy bindings name, newest first (see emit-runtime.ts). */
  legacyFolders: string[];
}

/** What a regeneration compares against the previous output to report changes. */
export interface Summary {
  types: string[];
  methods: string[];
  filterKeys: string[];
  flags: string[];
  /** Whether the revision serves the subscription stream, so a runtime serves it statelessly (ir.withRuntime). */
  listenStream?: boolean;
}

/** The parts of a summary that a regeneration reports changes in. */
type ListedPart = "types" | "methods" | "filterKeys" | "flags";

export interface Manifest {
  inputs: ManifestInputs;
  outputs: Record<string, string>;
  summary: Summary;
}

/** The libraries whose versions shape the output: the types' declarations and their formatting. */
const OUTPUT_LIBRARIES = ["json-schema-to-typescript", "prettier"] as const;

/**
 * The generator's identity: mcp-gen's version and the versions of the libraries that shape
 * the output. Never the text of our own sources: a comment edited in cli/generate/ must not
 * change every committed output (the byte-for-byte test of generated/ catches real changes).
 */
export function generatorIdentity(): string {
  const libraries = OUTPUT_LIBRARIES.map((name) => `${name}@${installedVersion(name)}`);
  return `mcp-gen@${generatorVersion()} ${libraries.join(" ")}`;
}

/**
 * A library's version from the nearest node_modules/<name>/package.json above mcp-gen's
 * root, where Node resolves it too. Read directly: setting up `require` only to read two
 * JSON files would pull the CommonJS loader into every `--check`.
 */
function installedVersion(name: string): string {
  for (let dir = packageRoot; ; dir = dirname(dir)) {
    const manifest = readRegularFile(join(dir, "node_modules", name, "package.json"));
    if (manifest) return String((JSON.parse(manifest.toString("utf8")) as { version?: unknown }).version);
    if (dirname(dir) === dir) return "missing";
  }
}

/** One hash over the runtime's source files, paths included. */
export function runtimeSourceSha256(source: ReadonlyMap<string, string>): string {
  const hash = createHash("sha256");
  for (const path of sorted(source.keys())) hash.update(`${path}\0`).update(source.get(path)!).update("\0");
  return hash.digest("hex");
}

export function summarize(ir: SchemaIR): Summary {
  const maps: MapsIR = ir.maps;
  const methods = [...maps.clientRequests, ...maps.serverRequests, ...maps.clientNotifications, ...maps.serverNotifications];
  const kinds = maps.subscriptionKinds ?? [];
  return {
    types: ir.definitions.map((definition) => definition.name),
    methods: sorted(new Set(methods.map((entry) => entry.method))),
    filterKeys: sorted(kinds.map((kind) => kind.filterKey)),
    flags: sorted(kinds.flatMap((kind) => (kind.serverCapability ? [kind.serverCapability.join(".")] : []))),
    listenStream: ir.withRuntime,
  };
}

export function renderManifest(inputs: ManifestInputs, files: ReadonlyMap<string, string>, summary: Summary): string {
  const outputs = Object.fromEntries(sorted(files.keys()).map((path) => [path, sha256Hex(files.get(path)!)]));
  return `${JSON.stringify({ inputs, outputs, summary } satisfies Manifest, null, 2)}\n`;
}

/** Where the runtime serving the output's revision lives, read from either form of the manifest; undefined when no runtime serves it. */
export function runtimePlacement(manifest: Manifest): RuntimePlacement | undefined {
  const { runtime, typesOnly, runtimeKept } = manifest.inputs as ManifestInputs & EarlierInputs;
  if (runtime !== undefined) return runtime;
  if (runtimeKept === true) return "kept";
  if (RUNTIME_ENTRY in manifest.outputs) return "beside";
  return typesOnly === true && manifest.summary?.listenStream === true ? "none" : undefined;
}

/**
 * The manifest's inputs as this release records them: an earlier manifest's `typesOnly` and
 * `runtimeKept` read back as `runtime`, in the order a generation writes the keys, so an
 * output made by the previous release compares equal when nothing else changed.
 */
export function currentInputs(manifest: Manifest): ManifestInputs {
  const { generator, revision, schemaSha256, extensions, runtimeSourceSha256, legacyFolders } = manifest.inputs;
  const inputs: ManifestInputs = { generator, revision, schemaSha256 };
  if (extensions !== undefined) inputs.extensions = extensions;
  const runtime = runtimePlacement(manifest);
  if (runtime !== undefined) inputs.runtime = runtime;
  if (runtimeSourceSha256 !== undefined) inputs.runtimeSourceSha256 = runtimeSourceSha256;
  if (legacyFolders !== undefined) inputs.legacyFolders = legacyFolders;
  return inputs;
}

/** The manifest's text with its inputs in the current form; undefined when they already are. */
export function manifestInCurrentForm(manifest: Manifest): string | undefined {
  const inputs = currentInputs(manifest);
  if (JSON.stringify(inputs) === JSON.stringify(manifest.inputs)) return undefined;
  return `${JSON.stringify({ inputs, outputs: manifest.outputs, summary: manifest.summary } satisfies Manifest, null, 2)}\n`;
}

export function readManifest(dir: string): Manifest | undefined {
  return parseManifest(readRegularFile(join(dir, MANIFEST_FILE)));
}

/** A manifest file's bytes, parsed; undefined when there are none or they are not JSON. */
export function parseManifest(bytes: Buffer | undefined): Manifest | undefined {
  if (!bytes) return undefined;
  try {
    return JSON.parse(bytes.toString("utf8")) as Manifest;
  } catch {
    return undefined;
  }
}

/**
 * The files of an output that differ from what these inputs make, told by its manifest alone:
 * made from the same inputs, the output is the manifest's (generation is deterministic), so a
 * changed, missing or extra file is stale without reading the schema. Undefined when the
 * manifest is missing or was made from other inputs: only a regeneration can tell then. Where
 * the runtime lives (`placement`) and a copy's inputs (`runtime`) count only for the output of
 * a revision a runtime serves; a manifest of the previous release is read in the current form.
 */
export function staleAgainstManifest(dir: string, inputs: ManifestInputs, runtime?: RuntimeInputs, placement: RuntimePlacement = "beside"): string[] | undefined {
  const manifest = readManifest(dir);
  if (!manifest) return undefined;
  const expectedInputs = !withListenStream(manifest) ? inputs : { ...inputs, runtime: placement, ...(placement === "beside" ? runtime : undefined) };
  if (JSON.stringify(currentInputs(manifest)) !== JSON.stringify(expectedInputs)) return undefined;
  return staleOutputs(dir, manifest.outputs);
}

/** Whether the output is of a revision a runtime serves statelessly (whether or not one is written beside it). */
function withListenStream(manifest: Manifest): boolean {
  return RUNTIME_ENTRY in manifest.outputs || manifest.summary.listenStream === true;
}

/** The files of `dir` that a manifest's `outputs` hashes do not match: changed, missing, or not listed (the manifest itself aside). */
export function staleOutputs(dir: string, outputs: Manifest["outputs"]): string[] {
  const present = new Set(listFiles(dir));
  const changed = Object.entries(outputs)
    .filter(([path, hash]) => {
      const bytes = present.has(path) ? readRegularFile(join(dir, path)) : undefined;
      return bytes === undefined || sha256Hex(bytes) !== hash;
    })
    .map(([path]) => path);
  const extra = [...present].filter((path) => path !== MANIFEST_FILE && !Object.hasOwn(outputs, path));
  return sorted([...changed, ...extra]);
}

/** Lines such as "+ method subscriptions/listen" or "- flag resources.subscribe". */
export function describeChanges(previous: Summary | undefined, next: Summary): string[] {
  if (!previous) return [];
  const labels: Record<ListedPart, string> = { types: "type", methods: "method", filterKeys: "filter key", flags: "flag" };
  return (Object.keys(labels) as ListedPart[]).flatMap((part) => {
    const before = new Set(previous[part] ?? []);
    const after = new Set(next[part]);
    return [
      ...next[part].filter((item) => !before.has(item)).map((item) => `+ ${labels[part]} ${item}`),
      ...sorted(before)
        .filter((item) => !after.has(item))
        .map((item) => `- ${labels[part]} ${item}`),
    ];
  });
}

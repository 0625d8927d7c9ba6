import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { generatorVersion, packageRoot } from "./paths.js";
import { sha256Hex } from "./load.js";
import { listFiles } from "./write.js";
import { sorted } from "./sort.js";
import type { MapsIR, SchemaIR } from "./ir.js";

/**
 * Written with the output: what it was generated from (schema hash, generator version,
 * runtime templates) and the hash of every file. `--check` compares these by hashing alone,
 * without loading the code-generation libraries.
 */
export const MANIFEST_FILE = "mcp-gen.manifest.json";

export interface ManifestInputs {
  generator: string;
  revision: string;
  schemaSha256: string;
  runtimeTemplatesSha256: string;
}

/** What a regeneration compares against the previous output to report changes. */
export interface Summary {
  types: string[];
  methods: string[];
  filterKeys: string[];
  flags: string[];
}

export interface Manifest {
  inputs: ManifestInputs;
  outputs: Record<string, string>;
  summary: Summary;
}

/**
 * What makes the generator itself: mcp-gen's version, the versions of the libraries that
 * shape the output, and the generator's own sources (shipped in the package for this), so
 * that editing the generator makes `--check` regenerate instead of trusting the manifest.
 */
export function generatorFingerprint(): string {
  const require = createRequire(import.meta.url);
  const libraries = ["json-schema-to-typescript", "prettier", "ts-morph"].map((name) => `${name}@${require(`${name}/package.json`).version}`);
  const sourceDir = join(packageRoot, "cli", "generate");
  const sources = existsSync(sourceDir) ? sorted(readdirSync(sourceDir).filter((name) => name.endsWith(".ts"))) : [];
  const sourceHash = sha256Hex(sources.map((name) => `${name}\0${readFileSync(join(sourceDir, name), "utf8")}\0`).join(""));
  return `mcp-gen@${generatorVersion()} ${libraries.join(" ")} sources:${sourceHash}`;
}

export function templatesSha256(templates: ReadonlyMap<string, string>): string {
  return sha256Hex(
    sorted(templates.keys())
      .map((path) => `${path}\0${templates.get(path)}\0`)
      .join(""),
  );
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
  };
}

export function renderManifest(inputs: ManifestInputs, files: ReadonlyMap<string, string>, summary: Summary): string {
  const outputs = Object.fromEntries(sorted(files.keys()).map((path) => [path, sha256Hex(files.get(path)!)]));
  return `${JSON.stringify({ inputs, outputs, summary } satisfies Manifest, null, 2)}\n`;
}

export function readManifest(dir: string): Manifest | undefined {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Manifest;
  } catch {
    return undefined;
  }
}

/** True when the output was made from these inputs and no file was changed since. */
export function isFresh(dir: string, inputs: ManifestInputs): boolean {
  const manifest = readManifest(dir);
  if (!manifest || JSON.stringify(manifest.inputs) !== JSON.stringify(inputs)) return false;
  const expected = new Set([...Object.keys(manifest.outputs), MANIFEST_FILE]);
  const present = listFiles(dir);
  if (present.length !== expected.size || present.some((path) => !expected.has(path))) return false;
  return Object.entries(manifest.outputs).every(([path, hash]) => sha256Hex(readFileSync(join(dir, path))) === hash);
}

/** Lines such as "+ method subscriptions/listen" or "- flag resources.subscribe". */
export function describeChanges(previous: Summary | undefined, next: Summary): string[] {
  if (!previous) return [];
  const labels: Record<keyof Summary, string> = { types: "type", methods: "method", filterKeys: "filter key", flags: "flag" };
  return (Object.keys(labels) as Array<keyof Summary>).flatMap((part) => {
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

/**
 * How a project writes its tool schemas: JSON Schema literals (the runtime infers their
 * types; no dependency) or zod (a Standard Schema the runtime checks and lists). The choice
 * is made at create time (`--schema-library`) and read back from the project itself: a
 * project that depends on zod gets zod tools from `mcp-gen tool`, whoever added zod.
 */
import { readPackageJson } from "../toolbox/package.js";

export const SCHEMA_LIBRARIES = ["json-schema", "zod"] as const;
export type SchemaLibrary = (typeof SCHEMA_LIBRARIES)[number];

/** The zod a new project depends on: the range this package is tested with (its own dev dependency). */
export function zodDependencySpec(root: string): string {
  return devDependencySpec(root, "zod");
}

/** A package a new project depends on, at the version this package is tested with (its own dev dependency). */
export function devDependencySpec(root: string, name: string): string {
  const spec = readPackageJson(root).devDependencies?.[name];
  if (spec === undefined) throw new Error(`${root}/package.json has no ${name} dev dependency to take the version from`);
  return spec;
}

/** The library a project's tools are written with: zod when it depends on zod. */
export function projectSchemaLibrary(projectRoot: string): SchemaLibrary {
  const manifest = readPackageJson(projectRoot);
  return manifest.dependencies?.["zod"] !== undefined || manifest.devDependencies?.["zod"] !== undefined ? "zod" : "json-schema";
}

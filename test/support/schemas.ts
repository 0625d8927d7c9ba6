import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The project root (this file is test/support/schemas.ts). */
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Where the upstream schemas live: `$MCP_SCHEMAS_DIR`, else `../shared/schemas` beside
 * the project. They are inputs, never copied into the repo.
 */
export const schemasDir = resolve(process.env.MCP_SCHEMAS_DIR ?? join(repoRoot, "..", "shared", "schemas"));

/** The path of one upstream schema, e.g. schemaPath("2026-07-28"); throws if it is absent. */
export function schemaPath(version: "2026-07-28" | "2025-11-25" | "draft-2026-06-07"): string {
  const path = join(schemasDir, version, "schema.json");
  if (!existsSync(path)) {
    throw new Error(`upstream schema not found at ${path}; set MCP_SCHEMAS_DIR to the folder holding <version>/schema.json`);
  }
  return path;
}

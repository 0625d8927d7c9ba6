import { readProjectConfig } from "../toolbox/project-config.js";
import { readLock } from "../generate/verify.js";
import { describeSchema, type DescribeContext } from "./describe.js";
import { compareRevisions } from "./compare.js";
import type { DiffReport } from "./render.js";

/**
 * `mcp-gen diff`, as a table of contents: describe both revisions from their IR
 * (describe.ts), compare the descriptions (compare.ts), and in a project read its source for
 * what it uses of them (uses.ts, which loads ts-morph only then). render.ts prints the result.
 */
export async function diffRevisions(dir: string, from: string, to: string): Promise<DiffReport> {
  const config = readProjectConfig(dir);
  const context: DescribeContext = { lock: readLock(), ...(config ? { project: { dir, config } } : {}) };
  const older = await describeSchema(from, context);
  const newer = await describeSchema(to, context);
  const diff = compareRevisions(older, newer);
  if (!config) return { diff };
  const { findProjectUses } = await import("./uses.js");
  return { diff, project: findProjectUses(dir, older, newer, diff) };
}

/**
 * A folder holding an `mcp-gen` command that runs this checkout's CLI through tsx, to put
 * first on PATH: a scaffold made by scaffoldProject links this repository's node_modules,
 * which has no `.bin/mcp-gen` (a package does not install itself), and its npm scripts call
 * `mcp-gen` (`npm run dev`).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { repoRoot } from "./schemas.js";

export function mcpGenOnPath(): { env: NodeJS.ProcessEnv; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "mcp-gen-bin-"));
  const tsx = fileURLToPath(import.meta.resolve("tsx"));
  const script = `#!/bin/sh\nexec ${quote(process.execPath)} --import ${quote(tsx)} ${quote(join(repoRoot, "cli", "main.ts"))} "$@"\n`;
  writeFileSync(join(dir, "mcp-gen"), script);
  chmodSync(join(dir, "mcp-gen"), 0o755);
  return {
    env: { PATH: `${dir}${delimiter}${process.env["PATH"] ?? ""}` },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

// The floor of a hash-based `--check`: start Node, read every file under the paths given
// (folders recursively, in sorted order), sha256 each, print nothing. What `mcp-gen types
// --check` cannot do without: bench/types.mjs runs it on the same files the check reads.
// Usage: node bench/hash-floor.mjs <file|folder>...
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

function hashAll(path) {
  if (!statSync(path).isDirectory()) return void createHash("sha256").update(readFileSync(path)).digest("hex");
  for (const name of readdirSync(path).sort()) hashAll(join(path, name));
}
for (const path of process.argv.slice(2)) hashAll(path);

// Node 20 has no fs.globSync (Node 22 does), and the conformance CLI imports it by name
// from "fs". Preloading `node20.mjs` registers the resolve hook below, which hands that
// CLI this module in place of "fs": all of node:fs plus a globSync covering the patterns
// it uses (path segments of literal names, "*", "?" and "**").
import fs from "node:fs";
import path from "node:path";

export * from "node:fs";
export default fs;

function segmentRegExp(segment) {
  const escaped = segment
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, "[^/]*")
    .replace(/\?/g, "[^/]");
  return new RegExp(`^${escaped}$`);
}

function walk(dir, segments, prefix, out) {
  const [head, ...rest] = segments;
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  if (head === "**") {
    if (rest.length > 0) walk(dir, rest, prefix, out);
    for (const entry of entries) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name), segments, path.join(prefix, entry.name), out);
    }
    return;
  }
  const match = segmentRegExp(head);
  for (const entry of entries) {
    if (!match.test(entry.name)) continue;
    const relative = path.join(prefix, entry.name);
    if (rest.length === 0) out.add(relative);
    else if (entry.isDirectory()) walk(path.join(dir, entry.name), rest, relative, out);
  }
}

export function globSync(pattern, options = {}) {
  const out = new Set();
  for (const one of Array.isArray(pattern) ? pattern : [pattern]) {
    walk(options.cwd ?? process.cwd(), one.split("/").filter(Boolean), "", out);
  }
  return [...out];
}

/** Module hook: "fs" imported by the conformance package resolves to this module. */
export async function resolve(specifier, context, nextResolve) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL?.includes("/@modelcontextprotocol/conformance/")) {
    return { url: import.meta.url, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

/**
 * The conformance CLI imports `globSync` from "fs", which Node 22 added. On Node 20,
 * suite.ts registers this module as a resolve hook: "fs" imported from the conformance
 * package resolves here, to all of node:fs plus a globSync for the patterns it uses.
 */
import fs from "node:fs";
import path from "node:path";

export * from "node:fs";
export default fs;

/** Glob tokens as regular expressions: `**` crosses folders, `*` and `?` stay within one. */
const TOKENS: Record<string, string> = { "**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]" };

/** The paths under `cwd` (relative to it) that match `pattern`. */
export function globSync(pattern: string, options: { cwd?: string } = {}): string[] {
  const source = pattern.replace(
    /\*\*\/|\*\*|\*|\?|[.+^${}()|[\]\\]/g,
    (token) => TOKENS[token] ?? `\\${token}`,
  );
  const matches = new RegExp(`^${source}$`);
  const entries = fs.readdirSync(options.cwd ?? process.cwd(), {
    recursive: true,
    encoding: "utf8",
  });
  return entries.filter((entry) => matches.test(entry.split(path.sep).join("/")));
}

interface ResolveContext {
  parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<unknown>;

/** Module hook: "fs" imported by the conformance package resolves to this module. */
export async function resolve(specifier: string, context: ResolveContext, next: NextResolve) {
  const fromSuite = context.parentURL?.includes("/@modelcontextprotocol/conformance/") ?? false;
  if (fromSuite && (specifier === "fs" || specifier === "node:fs")) {
    return { url: import.meta.url, shortCircuit: true };
  }
  return next(specifier, context);
}

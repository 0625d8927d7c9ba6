/**
 * The conformance CLI imports `globSync` from "fs", which Node 22 added. On Node 20, suite.ts
 * has node load this module before the suite (`node --import`): it gives node:fs a globSync for
 * the patterns the suite uses. The names node:fs exports as an ES module are read from it when
 * it is first imported as one, so this module must reach it without an `import` of it, and
 * before the suite does.
 */
const fs = process.getBuiltinModule("node:fs");
const path = process.getBuiltinModule("node:path");

/** Glob tokens as regular expressions: `**` crosses folders, `*` and `?` stay within one. */
const TOKENS: Record<string, string> = { "**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]" };

/** The paths under `cwd` (relative to it) that match `pattern`. */
function globSync(pattern: string, options: { cwd?: string } = {}): string[] {
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

if (!("globSync" in fs)) Object.assign(fs, { globSync });

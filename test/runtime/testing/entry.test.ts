import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../../support/schemas.js";

/** Every module specifier a runtime source imports or re-exports, statically. */
function specifiers(path: string): string[] {
  const text = readFileSync(path, "utf8");
  return [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms)].map((match) => match[1]!);
}

/** The runtime files an entry loads (relative imports followed), and the built-ins they name. */
function closure(entry: string): { files: Set<string>; builtins: Set<string> } {
  const files = new Set<string>();
  const builtins = new Set<string>();
  const visit = (path: string) => {
    if (files.has(path)) return;
    files.add(path);
    for (const specifier of specifiers(path)) {
      if (specifier.startsWith("node:")) builtins.add(specifier);
      else if (specifier.startsWith(".")) visit(join(dirname(path), specifier.replace(/\.js$/, ".ts")));
    }
  };
  visit(entry);
  return { files, builtins };
}

const runtime = join(repoRoot, "packages", "runtime", "src");

test("the runtime's main entry loads nothing from node:test or node:assert", () => {
  const { builtins, files } = closure(join(runtime, "index.ts"));
  assert.ok(files.size > 10, `followed the imports (${files.size} files)`);
  assert.ok(builtins.has("node:http"), "built-ins are seen");
  for (const banned of ["node:test", "node:assert", "node:assert/strict"]) assert.ok(!builtins.has(banned), `index.ts reaches ${banned}`);
});

test("the testing entry is where node:test is loaded (the contract suite)", () => {
  const { builtins } = closure(join(runtime, "testing", "index.ts"));
  assert.ok(builtins.has("node:test"));
});

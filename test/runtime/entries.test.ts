/**
 * Each runtime entry exports exactly the names README.md ("Runtime entries") lists for it,
 * no internal beside them. The names are read from the entry's own export statements, so
 * type-only exports count as much as values.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../support/schemas.js";

const RUNTIME = join(repoRoot, "packages", "runtime");
const manifest = JSON.parse(readFileSync(join(RUNTIME, "package.json"), "utf8")) as { name: string; exports: Record<string, unknown> };

/** Each entry of the runtime package: the name a project imports, and the source module its declarations are made from. */
const ENTRIES = Object.entries(manifest.exports)
  .filter(([subpath]) => subpath !== "./package.json")
  .map(([subpath, target]) => {
    const { types } = target as { types: string };
    const source = types.replace("./dist/types/", "").replace(/\.d\.ts$/, ".ts");
    return { name: subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`, source };
  });

/** The names an entry exports: every `export { ... } from` and `export type { ... } from` of the file. */
function exportedNames(entry: { name: string; source: string }): string[] {
  const text = readFileSync(join(repoRoot, entry.source), "utf8");
  assert.doesNotMatch(text, /^export \*/m, `${entry.source} re-exports a whole module: list its names`);
  const names: string[] = [];
  for (const match of text.matchAll(/^export (?:type )?\{([^}]*)\}/gm)) {
    for (const part of match[1]!.split(",")) {
      const name = part
        .trim()
        .replace(/^type /, "")
        .split(" as ")
        .pop()!
        .trim();
      if (name !== "") names.push(name);
    }
  }
  return names.sort();
}

/** The names README.md lists under the entry's heading: every `name` on its bullet lines. */
function documentedNames(entry: string): string[] {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const start = readme.indexOf(`### \`${entry}\``);
  assert.ok(start >= 0, `README.md has a "### \`${entry}\`" heading`);
  const section = readme.slice(start).split(/\n(?=##)/)[0]!;
  const bullets = section.split("\n").filter((line) => line.startsWith("- "));
  return bullets.flatMap((line) => [...line.matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((match) => match[1]!)).sort();
}

test("the package's entries are its exports, each made from a source module", () => {
  assert.deepEqual(
    ENTRIES.map((entry) => entry.name),
    ["@mcp-gen/runtime", "@mcp-gen/runtime/transports", "@mcp-gen/runtime/testing", "@mcp-gen/runtime/client", "@mcp-gen/runtime/modern"],
  );
  for (const entry of ENTRIES) assert.ok(existsSync(join(repoRoot, entry.source)), entry.source);
});

for (const entry of ENTRIES) {
  test(`${entry.name} exports exactly the names README.md documents for it`, () => {
    const exported = exportedNames(entry);
    const documented = documentedNames(entry.name);
    assert.equal(new Set(documented).size, documented.length, "each name is listed once");
    assert.deepEqual(
      { undocumented: exported.filter((name) => !documented.includes(name)), missing: documented.filter((name) => !exported.includes(name)) },
      { undocumented: [], missing: [] },
    );
  });
}

test("no name is exported by two entries (a project re-exports the first two together)", () => {
  const [server, transports] = ENTRIES.map(exportedNames);
  assert.deepEqual(
    server!.filter((name) => transports!.includes(name)),
    [],
  );
});

test("the internals are in no entry", () => {
  const all = ENTRIES.flatMap(exportedNames);
  for (const internal of [
    "HttpExchange",
    "stampNotification",
    "bindingOf",
    "TaskService",
    "TaskStart",
    "RequestStateSealer",
    "checkParamHeaders",
    "readParamHeaders",
  ]) {
    assert.ok(!all.includes(internal), `${internal} is exported`);
  }
});

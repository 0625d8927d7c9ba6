/**
 * The CLI reaches the runtime one way: through the import point (generated/index.ts, and its
 * facts modules, which hold no runtime) or an entry of the runtime package (its source, as
 * packages/runtime/package.json's exports name it). Never through a revision folder
 * (generated/v<yymm>/), which pins the CLI to one revision, and never by a path deeper into
 * the runtime, where a class reached one way is not the class reached the other.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { test } from "node:test";
import { ts } from "ts-morph";
import { listFiles } from "../../cli/toolbox/files.js";
import { repoRoot } from "../support/schemas.js";

/** The deep imports the CLI keeps, `<cli file> -> <runtime module>`, each with why no entry serves. */
const DEEP_IMPORTS_ALLOWED: Readonly<Record<string, string>> = {
  "cli/dev/supervisor.ts -> packages/runtime/src/transports/lines.ts":
    "the line splitter no entry exports; it splits a child's output in the CLI's own process, no runtime object crosses",
  "cli/dev/supervisor.ts -> packages/runtime/src/transports/ndjson.ts": "DEFAULT_MAX_LINE, a number no entry exports",
  "cli/dev/http-supervisor.ts -> packages/runtime/src/transports/lines.ts": "as supervisor.ts: the line splitter, over a child's output",
  "cli/dev/http-listen.ts -> packages/runtime/src/transports/sse-frames.ts":
    "the SSE frame writer no entry exports; the dev relay writes text to its own client, no runtime object crosses",
  "cli/dev/http-listen.ts -> packages/runtime/src/transports/sse-messages.ts": "the SSE reader no entry exports; it reads the child server's stream as text",
  "cli/ship/lint/index.ts -> packages/runtime/src/schema-portability/lint.ts": "the testing entry exports it but loads node:test; a function over plain data",
  "cli/ship/lint/index.ts -> packages/runtime/src/schema-portability/provider-rules.ts": "as lint.ts: data from the testing entry, without node:test",
  "cli/scaffold/primitive-views.ts -> packages/runtime/src/primitives/uri-template.ts":
    "the main entry would load the whole runtime into every `mcp-gen create` and `tool`; the parser checks a string, no instance leaves the module",
  "cli/client/emit.ts -> packages/runtime/src/transports/param-headers.ts":
    "the x-mcp-header reader no entry exports; it returns plain data written into the generated file",
};

/** The import point's modules: index.ts re-exports the runtime, the facts modules hold none. */
const IMPORT_POINT = new Set(["generated/index.ts", "generated/facts.ts", "generated/legacy-facts.ts"]);

/** The source of each entry of the runtime package, from its exports' type declarations. */
function runtimeEntries(): Set<string> {
  const manifest = JSON.parse(readFileSync(join(repoRoot, "packages", "runtime", "package.json"), "utf8")) as {
    exports: Record<string, string | { types?: string }>;
  };
  const declarations = Object.values(manifest.exports).flatMap((target) => (typeof target === "object" && target.types ? [target.types] : []));
  return new Set(declarations.map((path) => path.replace(/^\.\/dist\/types\//, "").replace(/\.d\.ts$/, ".ts")));
}

/** Every relative import of the CLI's TypeScript files (static, dynamic, type-only), as `<file> -> <module>` from the repository root. */
function cliImports(): string[] {
  return listFiles(join(repoRoot, "cli"), "cli/")
    .filter((file) => file.endsWith(".ts"))
    .flatMap((file) => {
      const text = readFileSync(join(repoRoot, file), "utf8");
      const specifiers = ts.preProcessFile(text, true, true).importedFiles.map((imported) => imported.fileName);
      return specifiers
        .filter((specifier) => specifier.startsWith("."))
        .map((specifier) => `${file} -> ${posix.join(posix.dirname(file), specifier).replace(/\.js$/, ".ts")}`);
    });
}

function intoRuntime(edge: string): string | undefined {
  const target = edge.split(" -> ")[1]!;
  return target.startsWith("generated/") || target.startsWith("packages/runtime/") ? target : undefined;
}

test("the CLI reaches the runtime only through the import point and the package's entries, never a revision folder or a deeper path", () => {
  const entries = runtimeEntries();
  assert.ok(entries.has("packages/runtime/src/index.ts") && entries.has("packages/runtime/src/client/index.ts"), [...entries].join(", "));
  const edges = cliImports();
  assert.ok(edges.length > 100, "the CLI's imports were read");
  const offending = edges.filter((edge) => {
    const target = intoRuntime(edge);
    return target !== undefined && !IMPORT_POINT.has(target) && !entries.has(target) && !Object.hasOwn(DEEP_IMPORTS_ALLOWED, edge);
  });
  assert.deepEqual(offending, [], "import the import point (generated/index.ts) or a package entry, or name the exception and why");
  const unused = Object.keys(DEEP_IMPORTS_ALLOWED).filter((edge) => !edges.includes(edge));
  assert.deepEqual(unused, [], "an exception no file uses any more is taken off the list");
});

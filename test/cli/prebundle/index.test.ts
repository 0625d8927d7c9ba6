/**
 * `mcp-gen prebundle` on small real projects in a temp folder, bundled by esbuild: what goes
 * into dist/server.js and what stays an import, each module's own import.meta.url, and the
 * one-line refusals.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { BUNDLE, prebundleServer } from "../../../cli/prebundle/index.js";
import { tempFolder } from "../../support/temp-folder.js";

let temp: ReturnType<typeof tempFolder> | undefined;
afterEach(() => temp?.remove());

const CONFIG = { out: "generated", revisions: ["2025-11-25"], runtime: "@acme/runtime" };

/** A project folder holding `files` (path → text) and a package.json with the mcp-gen key. */
function project(files: Record<string, string>, config: object | null = CONFIG): string {
  temp = tempFolder("mcp-gen-prebundle");
  const all = { "package.json": JSON.stringify({ name: "p", type: "module", ...(config && { "mcp-gen": config }) }), ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(temp.dir, path)), { recursive: true });
    writeFileSync(join(temp.dir, path), text);
  }
  return temp.dir;
}

/** A package in the project's node_modules whose index.js is `source`. */
function aPackage(name: string, source: string): Record<string, string> {
  return {
    [`node_modules/${name}/package.json`]: JSON.stringify({ name, type: "module", exports: "./index.js" }),
    [`node_modules/${name}/index.js`]: source,
  };
}

const BUILT_PROJECT = {
  "dist/src/run.js": 'export { here, runtimeSays, otherSays } from "./where.js";\n',
  "dist/src/where.js": [
    'import { says as runtimeSays } from "@acme/runtime";',
    'import { says as otherSays } from "other-package";',
    "export const here = import.meta.url;",
    "export { runtimeSays, otherSays };",
    "",
  ].join("\n"),
  ...aPackage("@acme/runtime", 'export const says = "runtime";\n'),
  ...aPackage("other-package", 'export const says = "other";\n'),
};

test("the project's modules and the runtime package go into dist/server.js; other packages stay imports", async () => {
  const dir = project(BUILT_PROJECT);
  const result = await prebundleServer(dir);
  assert.deepEqual(result.written, [BUNDLE, `${BUNDLE}.map`]);
  const bundle = readFileSync(join(dir, BUNDLE), "utf8");
  assert.doesNotMatch(bundle, /@acme\/runtime/, "the runtime is inlined");
  assert.match(bundle, /from\s*"other-package"/, "another package is imported");
  const loaded = (await import(pathToFileURL(join(dir, BUNDLE)).href)) as Record<string, string>;
  assert.equal(loaded["runtimeSays"], "runtime");
  assert.equal(loaded["otherSays"], "other");
});

test("a bundled module's import.meta.url is its own built file's, not the bundle's", async () => {
  const dir = project(BUILT_PROJECT);
  await prebundleServer(dir);
  const loaded = (await import(pathToFileURL(join(dir, BUNDLE)).href)) as Record<string, string>;
  assert.equal(loaded["here"], pathToFileURL(join(dir, "dist/src/where.js")).href);
});

test("the bundle's source map leads to the sources tsc's maps name", async () => {
  const dir = project({
    ...BUILT_PROJECT,
    "dist/src/where.js": `${BUILT_PROJECT["dist/src/where.js"]}//# sourceMappingURL=where.js.map\n`,
    "dist/src/where.js.map": JSON.stringify({ version: 3, file: "where.js", sources: ["../../src/where.ts"], names: [], mappings: "AAAA;AACA;AACA" }),
  });
  await prebundleServer(dir);
  const map = JSON.parse(readFileSync(join(dir, `${BUNDLE}.map`), "utf8")) as { sources: string[] };
  assert.ok(map.sources.includes("../src/where.ts"), map.sources.join(", "));
});

test("a folder whose package.json has no mcp-gen key is refused in one line", async () => {
  const dir = project(BUILT_PROJECT, null);
  await assert.rejects(prebundleServer(dir), (error: unknown) => error instanceof CliError && /has no "mcp-gen" key/.test(error.message));
  assert.equal(existsSync(join(dir, BUNDLE)), false);
});

test("a project tsc has not built is refused, naming dist/src/run.js and how to build it", async () => {
  const dir = project({ "src/run.ts": "export {};\n" });
  await assert.rejects(
    prebundleServer(dir),
    (error: unknown) => error instanceof CliError && error.message === "dist/src/run.js is not built" && /npm run build/.test(error.hint ?? ""),
  );
});

test("a project without src/run.ts (made before it existed) is told it has nothing to bundle", async () => {
  const dir = project({ "src/main.ts": "export {};\n" });
  await assert.rejects(prebundleServer(dir), (error: unknown) => error instanceof CliError && /has no src\/run\.ts/.test(error.message));
});

test("a module esbuild cannot resolve is one line naming the file and line, and nothing is written", async () => {
  const dir = project({ "dist/src/run.js": 'export const a = 1;\nimport "./gone.js";\n' });
  await assert.rejects(
    prebundleServer(dir),
    (error: unknown) =>
      error instanceof CliError && /^cannot bundle dist\/src\/run\.js: dist\/src\/run\.js:2: Could not resolve "\.\/gone\.js"$/.test(error.message),
  );
  assert.equal(existsSync(join(dir, BUNDLE)), false);
});

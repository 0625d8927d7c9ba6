import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { generatorDependency } from "../../../cli/scaffold/package-root.js";
import { packageRoot } from "../../../cli/toolbox/package.js";
import { repoRoot } from "../../support/schemas.js";
import { tempFolder } from "./helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("package-root")));
afterEach(() => temp.remove());

/** An installed copy of the generator below `dir`, as npm or npx would lay it out. */
function installedUnder(dir: string, installerDependencies: Record<string, string>): string {
  const root = join(dir, "node_modules", "mcp-gen");
  mkdirSync(join(root, "templates"), { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "mcp-gen", version: "1.2.3" }));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ dependencies: installerDependencies }));
  return root;
}

test("run from a checkout that was not built (mcp-gen's own development), a new project links that checkout", (t) => {
  assert.equal(packageRoot(), repoRoot.replace(/\/$/, ""));
  if (existsSync(join(repoRoot, "dist", "cli", "main.js"))) return t.skip("this checkout is built; the next test covers it");
  assert.deepEqual(generatorDependency(), { spec: `file:${repoRoot.replace(/\/$/, "")}` });
});

test("run from a built checkout, a new project keeps a packed tarball of it in vendor/ and names it relatively", () => {
  const root = join(temp.dir, "checkout");
  mkdirSync(join(root, "dist", "cli"), { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "mcp-gen", version: "1.2.3", files: ["dist/"] }));
  writeFileSync(join(root, "dist", "cli", "main.js"), "");
  const dependency = generatorDependency(root);
  assert.equal(dependency.spec, "file:vendor/mcp-gen-1.2.3.tgz");
  assert.equal(dependency.vendored?.path, "vendor/mcp-gen-1.2.3.tgz");
  assert.equal(dependency.vendored?.bytes()[0], 0x1f, "gzip");
});

test("run from a tarball through npx, a new project keeps a copy of that very tarball in vendor/", () => {
  const root = installedUnder(temp.dir, { "mcp-gen": "file:packs/mcp-gen-1.2.3.tgz" });
  mkdirSync(join(temp.dir, "packs"));
  writeFileSync(join(temp.dir, "packs", "mcp-gen-1.2.3.tgz"), "the tarball npx installed");
  const dependency = generatorDependency(root);
  assert.equal(dependency.spec, "file:vendor/mcp-gen-1.2.3.tgz");
  assert.equal(dependency.vendored?.bytes().toString(), "the tarball npx installed");
});

test("installed from the registry, a new project depends on this version's range", () => {
  const root = installedUnder(temp.dir, { "create-mcp-handler": "^1.2.3" });
  assert.deepEqual(generatorDependency(root), { spec: "^1.2.3" });
});

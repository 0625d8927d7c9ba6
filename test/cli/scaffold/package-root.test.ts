import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { generatorDependencySpec } from "../../../cli/scaffold/package-root.js";
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

test("run from a checkout, a new project depends on that checkout", () => {
  assert.equal(packageRoot(), repoRoot.replace(/\/$/, ""));
  assert.equal(generatorDependencySpec(), `file:${repoRoot.replace(/\/$/, "")}`);
});

test("run from a tarball through npx, a new project depends on the same tarball", () => {
  const root = installedUnder(temp.dir, { "mcp-gen": "file:../packs/mcp-gen-1.2.3.tgz" });
  assert.equal(generatorDependencySpec(root), `file:${join(temp.dir, "..", "packs", "mcp-gen-1.2.3.tgz")}`);
});

test("installed from the registry, a new project depends on this version's range", () => {
  const root = installedUnder(temp.dir, { "create-mcp-handler": "^1.2.3" });
  assert.equal(generatorDependencySpec(root), "^1.2.3");
});

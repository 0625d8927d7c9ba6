import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { packedPaths, packTarball } from "../../../../cli/toolbox/tarball.js";
import { repoRoot } from "../../../support/schemas.js";
import { explain, runIn, tempFolder } from "../../../cli/scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("tarball")));
afterEach(() => temp.remove());

test("a packed checkout holds the files npm pack would pack", { timeout: 60_000 }, () => {
  const npm = runIn(repoRoot, "npm", ["pack", "--dry-run", "--json", "--ignore-scripts"]);
  assert.equal(npm.status, 0, explain(npm));
  const listed = (JSON.parse(npm.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path).sort();
  assert.deepEqual(packedPaths(repoRoot), listed);
});

test("a packed runtime package holds the files npm pack would pack: its build, no source", { timeout: 60_000 }, () => {
  const runtime = join(repoRoot, "packages", "runtime");
  const npm = runIn(runtime, "npm", ["pack", "--dry-run", "--json", "--ignore-scripts"]);
  assert.equal(npm.status, 0, explain(npm));
  const listed = (JSON.parse(npm.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path).sort();
  assert.deepEqual(packedPaths(runtime), listed);
  assert.ok(listed.includes("dist/index.js") && listed.includes("dist/types/packages/runtime/src/index.d.ts"), "the bundle and its declarations");
  assert.ok(!listed.some((path) => path.startsWith("src/")), "no source: the bundles' maps hold it");
});

test("tar reads a packed tarball back: every file under package/, byte for byte, a long path and an executable included", () => {
  const root = join(temp.dir, "pkg");
  const deep = `lib/${"nested-folder/".repeat(8)}file-with-a-long-name.js`;
  mkdirSync(join(root, deep, ".."), { recursive: true });
  mkdirSync(join(root, "bin"));
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "pkg", version: "1.0.0", files: ["lib/", "bin/"] }));
  writeFileSync(join(root, "README.md"), "# pkg\n");
  writeFileSync(join(root, "notes.txt"), "not listed");
  writeFileSync(join(root, deep), "x".repeat(1500));
  writeFileSync(join(root, "bin", "run.js"), "#!/usr/bin/env node\n", { mode: 0o755 });
  const tarball = join(temp.dir, "pkg.tgz");
  writeFileSync(tarball, packTarball(root));
  assert.ok(deep.length > 100, "the path needs the ustar prefix field");
  const list = runIn(temp.dir, "tar", ["-tvzf", tarball]);
  assert.equal(list.status, 0, explain(list));
  assert.deepEqual(
    list.stdout.trim().split("\n").map((line) => line.split(/\s+/).at(-1)),
    ["package/README.md", "package/bin/run.js", `package/${deep}`, "package/package.json"],
  );
  assert.match(list.stdout, /^-rwxr-xr-x .* package\/bin\/run\.js$/m);
  const out = join(temp.dir, "out");
  mkdirSync(out);
  const extract = runIn(out, "tar", ["-xzf", tarball]);
  assert.equal(extract.status, 0, explain(extract));
  assert.equal(readFileSync(join(out, "package", deep), "utf8"), "x".repeat(1500));
  assert.equal(readFileSync(join(out, "package", "package.json"), "utf8"), readFileSync(join(root, "package.json"), "utf8"));
  assert.deepEqual(packTarball(root), packTarball(root), "the same files give the same bytes");
});

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { explain, tempFolder } from "../../../cli/scaffold/helpers.js";
import { offlineCopy, type OfflineCopy } from "../../../support/offline-copy.js";
import { schemaPath } from "../../../support/schemas.js";

/**
 * `mcp-gen types` in a project made from mcp-gen's own generated/ copies, with no network:
 * the copy of mcp-gen it runs from pins every schema at a loopback port nothing listens on.
 */
let temp: ReturnType<typeof tempFolder>;
let copy: OfflineCopy;
let project: string;

before(
  async () => {
    temp = tempFolder("mcp-gen-offline-types");
    copy = await offlineCopy(temp.dir);
    const created = copy.run("create", ["demo", "--yes", "--no-install", "--no-git"], temp.dir);
    assert.equal(created.status, 0, explain(created));
    project = join(temp.dir, "demo");
  },
  { timeout: 120_000 },
);
after(() => temp.remove());

const offline = { MCP_SCHEMAS_DIR: "" };

test("a project whose folders are mcp-gen's own copies regenerates with no network, and says it changed nothing in one line", () => {
  const run = copy.run("main", ["types"], project, offline);
  assert.equal(run.status, 0, explain(run));
  assert.equal(run.stdout, "generated/ is up to date (5 revisions)\n");
  assert.equal(run.stderr, "");
});

test("a revision that must be remade with no network fails in one line naming MCP_SCHEMAS_DIR, and reads no other revision's schema", () => {
  const types = join(project, "generated", "v2607", "types.ts");
  const edited = `${readFileSync(types, "utf8")}\n// an edit the manifest's hash does not know\n`;
  writeFileSync(types, edited);

  const failed = copy.run("main", ["types"], project, offline);
  assert.equal(failed.status, 1, explain(failed));
  const lines = failed.stderr.trim().split("\n");
  assert.equal(lines.length, 1, explain(failed));
  assert.match(lines[0]!, new RegExp(`^error: cannot reach ${copy.unreachable}\\S+/2026-07-28/schema\\.json \\(ECONNREFUSED\\)`));
  assert.match(lines[0]!, /set MCP_SCHEMAS_DIR to a folder holding 2026-07-28\/schema\.json/);
  assert.equal(readFileSync(types, "utf8"), edited, "the folder is left as it was");

  // A folder holding that one revision is enough: the others are current by their manifests.
  const onlyNewest = join(temp.dir, "only-newest");
  mkdirSync(onlyNewest);
  symlinkSync(dirname(schemaPath("2026-07-28")), join(onlyNewest, "2026-07-28"));
  const remade = copy.run("main", ["types"], project, { MCP_SCHEMAS_DIR: onlyNewest });
  assert.equal(remade.status, 0, explain(remade));
  assert.match(remade.stdout, /^wrote \S+\/generated\/v2607 from MCP 2026-07-28 \(pinned, /m);
  assert.match(remade.stdout, /^the other 4 revisions in generated\/ are up to date$/m);
  assert.doesNotMatch(remade.stdout, /v2411|v2503|v2506|v2511/);
  assert.doesNotMatch(readFileSync(types, "utf8"), /an edit the manifest's hash does not know/);
});

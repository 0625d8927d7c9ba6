import assert from "node:assert/strict";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { pinnedCopy, PINNED_COPIES, storePinnedCopies } from "../../../cli/generate/pinned-copies.js";
import { readLock } from "../../../cli/generate/verify.js";
import { tempFolder } from "./helpers.js";
import { schemaPath, type Revision } from "../../support/schemas.js";

const lock = readLock();
const revisions = Object.keys(lock.revisions) as Revision[];
let temp: ReturnType<typeof tempFolder>;
/** A folder laid out as $MCP_SCHEMAS_DIR: <revision>/schema.json for every pinned revision. */
let schemasDir: string;

before(() => {
  temp = tempFolder("mcp-gen-pinned-copies");
  schemasDir = join(temp.dir, "schemas-dir");
  mkdirSync(schemasDir);
  for (const revision of revisions) symlinkSync(dirname(schemaPath(revision)), join(schemasDir, revision));
});
after(() => temp.remove());

test("a build stores every pinned schema with its pinned bytes, and a second build finds nothing to do", async () => {
  const root = join(temp.dir, "package");
  const stored = await storePinnedCopies(lock, { MCP_SCHEMAS_DIR: schemasDir }, root);
  assert.deepEqual(
    stored.map((copy) => copy.revision),
    revisions,
  );
  for (const revision of revisions) {
    const copy = pinnedCopy(revision, lock, root);
    assert.equal(copy, join(root, PINNED_COPIES, revision, "schema.json"));
    assert.deepEqual(readFileSync(copy), readFileSync(schemaPath(revision)), "the bytes as pinned, not re-serialised");
  }
  assert.deepEqual(await storePinnedCopies(lock, { MCP_SCHEMAS_DIR: schemasDir }, root), []);
});

test("a copy whose bytes are not the pinned ones is not used, and the next build replaces it", async () => {
  const root = join(temp.dir, "edited");
  await storePinnedCopies(lock, { MCP_SCHEMAS_DIR: schemasDir }, root);
  const [revision] = revisions;
  const path = join(root, PINNED_COPIES, revision!, "schema.json");
  writeFileSync(path, `${readFileSync(path, "utf8")} `);
  assert.equal(pinnedCopy(revision!, lock, root), undefined);
  assert.deepEqual(await storePinnedCopies(lock, { MCP_SCHEMAS_DIR: schemasDir }, root), [{ revision, from: join(schemasDir, revision!, "schema.json") }]);
  assert.equal(pinnedCopy(revision!, lock, root), path);
});

test("a source whose bytes are not the pinned ones, or that is absent, is reported and nothing is stored for it", async () => {
  const root = join(temp.dir, "wrong");
  const wrongDir = join(temp.dir, "wrong-dir");
  const [first, second] = revisions;
  mkdirSync(join(wrongDir, first!), { recursive: true });
  writeFileSync(join(wrongDir, first!, "schema.json"), '{"$schema":"x"}');
  const stored = await storePinnedCopies(
    { ...lock, revisions: { [first!]: lock.revisions[first!]!, [second!]: lock.revisions[second!]! } },
    { MCP_SCHEMAS_DIR: wrongDir },
    root,
  );
  assert.equal(stored.length, 2);
  assert.match("missing" in stored[0]! ? stored[0].missing : "", /its sha256 is [0-9a-f]{64}, the lock pins [0-9a-f]{64}$/);
  assert.match("missing" in stored[1]! ? stored[1].missing : "", /ENOENT/);
  assert.equal(pinnedCopy(first!, lock, root), undefined);
  assert.equal(pinnedCopy(second!, lock, root), undefined);
});

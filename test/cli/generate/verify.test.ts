import assert from "node:assert/strict";
import { test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import type { LoadedSchema } from "../../../cli/generate/load.js";
import { identifySchema, readLock, versionFolder } from "../../../cli/generate/verify.js";

const lock = readLock();
const schema = (location: string, sha256: string): LoadedSchema => ({ json: {}, location, isUrl: false, sha256 });

test("the lock pins every published revision and the draft with URL, commit and sha256", () => {
  assert.deepEqual(Object.keys(lock.revisions).sort(), ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "draft-2026-06-07"]);
  for (const entry of Object.values(lock.revisions)) {
    assert.match(entry.url, new RegExp(`^https://raw\\.githubusercontent\\.com/modelcontextprotocol/modelcontextprotocol/${entry.commit}/schema/`));
    assert.match(entry.sha256, /^[0-9a-f]{64}$/);
  }
  assert.equal(lock.default, "2026-07-28");
});

test("a known revision is recognised by its hash, wherever the file lives", () => {
  const identity = identifySchema(schema("/anywhere/schema.json", lock.revisions["2025-11-25"].sha256), lock);
  assert.deepEqual(identity, { revision: "2025-11-25", sha256: lock.revisions["2025-11-25"].sha256, pinned: true });
});

test("an unknown hash takes its revision from --protocol-version, else from its path, and is unpinned", () => {
  assert.deepEqual(identifySchema(schema("/x/2026-10-01/schema.json", "ab"), lock), { revision: "2026-10-01", sha256: "ab", pinned: false });
  assert.equal(identifySchema(schema("/x/2026-10-01/schema.json", "ab"), lock, "2027-01-01").revision, "2027-01-01");
  assert.throws(
    () => identifySchema(schema("/x/latest.json", "ab"), lock),
    (error: CliError) => /cannot tell which MCP revision/.test(error.message) && /--protocol-version/.test(error.hint ?? ""),
  );
});

test("a pinned revision with other bytes is refused, by path or by flag", () => {
  assert.throws(() => identifySchema(schema("/x/2026-07-28/schema.json", "ab"), lock), /claims pinned MCP revision 2026-07-28/);
  assert.throws(() => identifySchema(schema("/x/schema.json", "ab"), lock, "2025-11-25"), /claims pinned MCP revision 2025-11-25/);
});

test("a --protocol-version that contradicts a pinned hash is refused", () => {
  assert.throws(() => identifySchema(schema("/x/schema.json", lock.revisions["2026-07-28"].sha256), lock, "2025-11-25"), /contradicts the schema/);
});

test("output folders are named v<yymm> after the revision", () => {
  assert.equal(versionFolder("2026-07-28"), "v2607");
  assert.equal(versionFolder("2025-11-25"), "v2511");
  assert.equal(versionFolder("draft-2026-06-07"), "v2606-draft");
});

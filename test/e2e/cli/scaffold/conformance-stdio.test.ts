/**
 * A new stdio-only project's `npm test` runs the official conformance suite against its
 * server's handlers (the suite reaches servers over HTTP only, so over the runtime's HTTP
 * transport on 127.0.0.1), and says in its output that stdio itself is not checked.
 */
import assert from "node:assert/strict";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { repoRoot } from "../../../support/schemas.js";
import { explain, runCreate, runIn, tempFolder } from "../../../cli/scaffold/helpers.js";

const E2E = { timeout: 300_000 };

describe("the conformance suite in a stdio project's npm test", () => {
  let temp: ReturnType<typeof tempFolder>;
  let app: string;

  before(() => {
    temp = tempFolder("mcp-gen-conformance-stdio");
    const create = runCreate(["app", "--yes", "--no-install", "--no-git", "--transport", "stdio"], temp.dir);
    assert.equal(create.status, 0, explain(create));
    app = join(temp.dir, "app");
    symlinkSync(join(repoRoot, "node_modules"), join(app, "node_modules"));
  });
  after(() => temp.remove());

  it("npm test runs the suite against the server's handlers at each revision, and says stdio is not checked", E2E, () => {
    const tests = runIn(app, "npm", ["test"], E2E.timeout);
    assert.equal(tests.status, 0, explain(tests));
    for (const revision of ["2025-11-25", "2026-07-28"]) {
      assert.match(tests.stdout, new RegExp(`^ +ok \\d+ - at ${revision}: every check passes`, "m"));
    }
    assert.match(tests.stdout, /^ +ok \d+ - over stdio # SKIP the suite reaches servers over HTTP only \(conformance server --url\): stdio is not checked$/m);
  });
});

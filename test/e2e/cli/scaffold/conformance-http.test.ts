/**
 * A new HTTP project's own `npm test` runs the official conformance suite against its built
 * server at each revision it serves, with the failures it expects listed with their reasons
 * in test/conformance-expected.json; an edit that breaks a check fails the test by the
 * check's name.
 */
import assert from "node:assert/strict";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { repoRoot } from "../../../support/schemas.js";
import { explain, runCreate, runIn, tempFolder } from "../../../cli/scaffold/helpers.js";

const E2E = { timeout: 300_000 };

describe("the conformance suite in an HTTP project's npm test", () => {
  let temp: ReturnType<typeof tempFolder>;
  let app: string;

  before(() => {
    temp = tempFolder("mcp-gen-conformance-http");
    const create = runCreate(["app", "--yes", "--no-install", "--no-git", "--transport", "http"], temp.dir);
    assert.equal(create.status, 0, explain(create));
    app = join(temp.dir, "app");
    // This checkout's installed packages, the conformance suite among them, in place of an install.
    symlinkSync(join(repoRoot, "node_modules"), join(app, "node_modules"));
  });
  after(() => temp.remove());

  it("the project depends on the conformance suite at the version this repository pins", () => {
    const own = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
    const project = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
    const name = "@modelcontextprotocol/conformance";
    assert.equal(project.devDependencies[name], own.devDependencies[name]);
  });

  it("a fresh project's npm test runs the suite at 2025-11-25 and 2026-07-28 over HTTP and passes", E2E, (t) => {
    const started = Date.now();
    const tests = runIn(app, "npm", ["test"], E2E.timeout);
    t.diagnostic(`npm test took ${Date.now() - started} ms`);
    assert.equal(tests.status, 0, explain(tests));
    for (const revision of ["2025-11-25", "2026-07-28"]) {
      const passed = new RegExp(`^ +ok \\d+ - at ${revision}: every check passes or is listed in test/conformance-expected.json$`, "m");
      assert.match(tests.stdout, passed);
    }
    // Every check the suite ran is counted, failures included: the run did reach the server.
    assert.match(tests.stdout, /# \d{3} checks, \d+ failing as test\/conformance-expected.json expects/);
  });

  it("edits that break the protocol fail the conformance test, each named: a tool name the naming rule refuses (the suite's tools-name-format), a tool answering without content, a resource read without uri (own-*)", E2E, () => {
    const edit = (path: string, from: string, to: string) => {
      const file = join(app, ...path.split("/"));
      const source = readFileSync(file, "utf8");
      assert.ok(source.includes(from), `${path} holds ${from}:\n${source}`);
      writeFileSync(file, source.replace(from, to));
    };
    edit("src/tools/ask-name.ts", 'name: "ask_name"', 'name: "ask name"');
    // A declined question ends in this answer, which the conformance test's client declines.
    edit("src/tools/ask-name.ts", 'return { content: [{ type: "text", text: "No name given; maybe next time." }] };', "return { structuredContent: {} } as never;");
    edit("src/resources/about.ts", '() => "About is served by this server.",', '() => ({ contents: [{ text: "no uri" }] }) as never,');
    edit("test/conformance-calls.json", '"ask_name"', '"ask name"');
    const tests = runIn(app, "npm", ["test"], E2E.timeout);
    assert.notEqual(tests.status, 0, explain(tests));
    assert.match(tests.stdout, /^ +not ok \d+ - at 2026-07-28: every check passes or is listed in test\/conformance-expected.json$/m);
    assert.match(tests.stdout, /tools-name-format \(tools-list\): WARNING .*ask name/);
    for (const revision of ["2025-11-25", "2026-07-28"]) {
      const failed = new RegExp(`^ +not ok \\d+ - at ${revision}: this server's own tools, resources and prompts answer what the revision requires$`, "m");
      assert.match(tests.stdout, failed);
    }
    assert.match(tests.stdout, /own-tools-call ask name: result\.content: missing, CallToolResult requires it/);
    assert.match(tests.stdout, /own-resources-read app:\/\/about: result\.contents\[0\]\.uri: missing, ReadResourceResult requires it/);
  });
});

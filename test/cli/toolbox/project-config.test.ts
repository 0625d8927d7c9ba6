import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { parseProjectConfig, readProjectConfig, withConfigText, withRevision, writeProjectConfig } from "../../../cli/toolbox/project-config.js";
import { repoRoot } from "../../support/schemas.js";
import { tempFolder } from "../scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("project-config")));
afterEach(() => temp.remove());

test("a config lists its revisions oldest first, out defaults to generated, the optional maps to empty", () => {
  assert.deepEqual(parseProjectConfig({ revisions: ["2026-07-28", "2025-11-25"] }), {
    out: "generated",
    revisions: ["2025-11-25", "2026-07-28"],
    extensions: {},
    schemas: {},
  });
  assert.deepEqual(parseProjectConfig({ out: "gen", revisions: ["draft-2026-06-07", "2026-07-28", "2025-11-25"], extensions: { "2026-07-28": ["tasks"] } }), {
    out: "gen",
    revisions: ["2025-11-25", "draft-2026-06-07", "2026-07-28"],
    extensions: { "2026-07-28": ["tasks"] },
    schemas: {},
  });
});

describe("a bad config is one line naming the bad key", () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ["not an object", ["2026-07-28"], /"mcp-gen" must be an object/],
    ["an unknown key", { revisions: ["2026-07-28"], revision: [] }, /"mcp-gen\.revision" is not a known key \(use out, revisions, extensions, schemas, runtime\)/],
    ["a runtime outside the project", { revisions: ["2026-07-28"], runtime: "./../runtime" }, /"mcp-gen\.runtime" must be a package name or a folder inside the project/],
    ["a runtime that is neither", { revisions: ["2026-07-28"], runtime: "Not A Name" }, /"mcp-gen\.runtime" must be a package name or a folder inside the project/],
    ["no revisions", { out: "generated" }, /"mcp-gen\.revisions" must be a non-empty list/],
    ["a revision of the wrong shape", { revisions: ["2026-07-28", "latest"] }, /"mcp-gen\.revisions\[1\]" must be a revision name, not "latest"/],
    ["a repeated revision", { revisions: ["2026-07-28", "2026-07-28"] }, /"mcp-gen\.revisions\[1\]" repeats 2026-07-28/],
    ["an out outside the project", { out: "../elsewhere", revisions: ["2026-07-28"] }, /"mcp-gen\.out" must be a folder inside the project/],
    [
      "extensions for an unlisted revision",
      { revisions: ["2026-07-28"], extensions: { "2025-11-25": ["tasks"] } },
      /"mcp-gen\.extensions\.2025-11-25" names a revision that "revisions" does not list/,
    ],
    [
      "extensions that are not a list of names",
      { revisions: ["2026-07-28"], extensions: { "2026-07-28": "tasks" } },
      /"mcp-gen\.extensions\.2026-07-28" must be a list of extension names or paths/,
    ],
    [
      "a schema location that is not a string",
      { revisions: ["2027-01-26"], schemas: { "2027-01-26": 1 } },
      /"mcp-gen\.schemas\.2027-01-26" must be a schema path or URL/,
    ],
  ];
  for (const [name, value, message] of cases) {
    test(name, () => {
      assert.throws(
        () => parseProjectConfig(value, "package.json"),
        (error: unknown) => error instanceof CliError && !error.message.includes("\n") && message.test(`${error.message} (${error.hint})`),
      );
    });
  }
});

test("a package.json without the key is no project config; one that is not JSON is one line", () => {
  writeFileSync(join(temp.dir, "package.json"), JSON.stringify({ name: "x" }));
  assert.equal(readProjectConfig(temp.dir), undefined);
  writeFileSync(join(temp.dir, "package.json"), "{ name: x");
  assert.throws(() => readProjectConfig(temp.dir), /package\.json is not valid JSON/);
});

test("this repository's own config lists every published revision it commits", () => {
  assert.deepEqual(readProjectConfig(repoRoot)?.revisions, ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]);
});

test("writing the config replaces only its own value: every other key keeps its place and layout", () => {
  const original = `{\n  "name": "app",\n  "engines": { "node": ">=20.19" },\n  "mcp-gen": { "revisions": ["2025-11-25"] },\n  "devDependencies": { "typescript": "^7.0.2" }\n}\n`;
  writeFileSync(join(temp.dir, "package.json"), original);
  const config = withRevision(readProjectConfig(temp.dir)!, "2027-01-26", "schemas/next.json");
  writeProjectConfig(temp.dir, config);
  const written = readFileSync(join(temp.dir, "package.json"), "utf8");
  assert.equal(
    written,
    `{\n  "name": "app",\n  "engines": { "node": ">=20.19" },\n  "mcp-gen": {\n    "out": "generated",\n    "revisions": ["2025-11-25", "2027-01-26"],\n    "schemas": {\n      "2027-01-26": "schemas/next.json"\n    }\n  },\n  "devDependencies": { "typescript": "^7.0.2" }\n}\n`,
  );
  assert.deepEqual(readProjectConfig(temp.dir), config);
});

test("a package.json without the key gets it added at the end", () => {
  const text = withConfigText(`{\n    "name": "app"\n}\n`, { out: "generated", revisions: ["2026-07-28"] });
  assert.equal(text, `{\n    "name": "app",\n    "mcp-gen": {\n        "out": "generated",\n        "revisions": ["2026-07-28"]\n    }\n}\n`);
});

test("listing a pinned revision again forgets a recorded schema location", () => {
  const config = parseProjectConfig({ revisions: ["2026-07-28"], schemas: { "2026-07-28": "old.json" } });
  assert.deepEqual(withRevision(config, "2026-07-28").schemas, {});
});

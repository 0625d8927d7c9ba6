import assert from "node:assert/strict";
import { test } from "node:test";
import { revisionsKeptRuntimeServes } from "../../../cli/generate/project.js";
import { readProjectConfig, type ProjectConfig } from "../../../cli/toolbox/project-config.js";
import { repoRoot } from "../../support/schemas.js";

/** This repository's own list: what mcp-gen ships under generated/, made for its kept runtime. */
const own = readProjectConfig(repoRoot)!;
const withPackage = (changes: Partial<ProjectConfig> = {}): ProjectConfig => ({ ...own, runtime: "@mcp-gen/runtime", ...changes });

test("which revisions a kept runtime serves is worked out once per run, for every listed revision", () => {
  assert.deepEqual([...revisionsKeptRuntimeServes({ ...own, runtime: undefined })], [], "no kept runtime: a copy beside each revision");
  assert.deepEqual([...revisionsKeptRuntimeServes(own)], own.revisions, "a folder of runtime source serves every revision");
  assert.deepEqual([...revisionsKeptRuntimeServes(withPackage())], ["2026-07-28"], "the package serves the revision it is built on");
  const otherExtensions = withPackage({ extensions: {} });
  assert.deepEqual([...revisionsKeptRuntimeServes(otherExtensions)], [], "other extensions: the package was not built on them");
  const ownSchema = withPackage({ schemas: { "2026-07-28": "schemas/2026-07-28.json" } });
  assert.deepEqual([...revisionsKeptRuntimeServes(ownSchema)], [], "a schema of the project's own: not the one the package was built on");
  assert.deepEqual([...revisionsKeptRuntimeServes(withPackage(), ["2026-07-28", "2027-01-26"])], ["2026-07-28"], "a revision named apart from the list");
});

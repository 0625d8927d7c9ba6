import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { packageRoot, readPackageJson } from "../../../cli/toolbox/package.js";
import { repoRoot } from "../../support/schemas.js";
import { tempFolder } from "../scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("mcp-gen-package")));
afterEach(() => temp.remove());

test("the package root is the folder of mcp-gen's own package.json", () => {
  assert.equal(packageRoot(), repoRoot.replace(/\/$/, ""));
  assert.equal(readPackageJson(packageRoot()).name, "mcp-gen");
});

test("a package.json that is missing or not a JSON object is a one-line error naming it", () => {
  const oneLine = (error: unknown) => error instanceof CliError && error.message.includes(join(temp.dir, "package.json")) && !error.message.includes("\n");
  assert.throws(() => readPackageJson(temp.dir), oneLine);
  for (const text of ["{ name: x", "[1]", "null"]) {
    writeFileSync(join(temp.dir, "package.json"), text);
    assert.throws(() => readPackageJson(temp.dir), oneLine, text);
  }
});

/**
 * A carriage return in a method name or a filter key: escaped in the maps, and the output
 * compiles under tsc --strict run as its own process (the maps' layout is checked in
 * process by test/cli/generate/emit-maps.test.ts).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { generateTypes } from "../../../../cli/generate/index.js";
import { schemaPath } from "../../../support/schemas.js";
import { editedSchema, explain, tempFolder, tscStrict } from "../../../cli/generate/helpers.js";

test("a carriage return in a method name or a filter key is escaped in the maps, and the output compiles", { timeout: 180_000 }, async () => {
  const temp = tempFolder("mcp-gen-maps-cr");
  try {
    const schema = editedSchema(schemaPath("2026-07-28"), temp.dir, "2026-12-01", (s) => {
      s.$defs.ListToolsRequest.properties.method.const = "tools/li\rst";
      const filter = s.$defs.SubscriptionFilter.properties;
      filter["tools\rListChanged"] = filter.toolsListChanged;
      delete filter.toolsListChanged;
    });
    const report = await generateTypes({ schema, out: temp.dir });
    const methods = readFileSync(join(report.outDir, "methods.ts"), "utf8");
    const capabilities = readFileSync(join(report.outDir, "capabilities.ts"), "utf8");
    assert.match(methods, /"tools\/li\\rst": \{/);
    assert.match(capabilities, /"tools\\rListChanged": \{\n\s+filterKey: "tools\\rListChanged",/);
    assert.doesNotMatch(methods + capabilities, /\r/, "no raw carriage return in the output");
    const run = await tscStrict(["types.ts", "methods.ts", "capabilities.ts"].map((file) => join(report.outDir, file)));
    assert.equal(run.status, 0, explain(run));
  } finally {
    temp.remove();
  }
});

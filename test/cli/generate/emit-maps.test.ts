import assert from "node:assert/strict";
import { test } from "node:test";
import { emitMaps } from "../../../cli/generate/emit-maps.js";
import { loadFormatter } from "../../../cli/generate/format.js";
import { buildIR } from "../../../cli/generate/ir.js";
import { loadSchema } from "../../../cli/generate/load.js";
import { normalizeSchema } from "../../../cli/generate/normalize.js";
import { identifySchema, readLock } from "../../../cli/generate/verify.js";
import { schemaPath } from "../../support/schemas.js";

test("the maps are printed exactly as the formatter would lay them out, for every upstream schema", { timeout: 120_000 }, async () => {
  const format = await loadFormatter();
  for (const revision of ["2026-07-28", "2025-11-25", "draft-2026-06-07"] as const) {
    const loaded = await loadSchema(schemaPath(revision));
    const maps = emitMaps(buildIR(normalizeSchema(loaded), identifySchema(loaded, readLock())).maps);
    for (const [path, text] of Object.entries(maps)) assert.equal(text, await format(path, text), `${revision} ${path}`);
  }
});

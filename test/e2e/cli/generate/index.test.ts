/**
 * What `generateTypes` writes compiles: each revision's output, and a schema whose description
 * tries to end a doc comment, under tsc --strict run as its own process (the output itself is
 * checked in process by test/cli/generate/index.test.ts).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { generateTypes } from "../../../../cli/generate/index.js";
import { schemaPath, type Revision } from "../../../support/schemas.js";
import { editedSchema, explain, tempFolder, tscStrict } from "../../../cli/generate/helpers.js";

const SLOW = { timeout: 180_000 };
const REVISIONS: ReadonlyArray<{ revision: Revision; extensions?: string[] }> = [
  { revision: "2026-07-28", extensions: ["io.modelcontextprotocol/tasks"] },
  { revision: "2025-11-25" },
  { revision: "draft-2026-06-07" },
];

let temp: ReturnType<typeof tempFolder>;
const generated = new Map<string, string>();
before(async () => {
  temp = tempFolder("mcp-gen-types-compile");
  for (const { revision, extensions } of REVISIONS) {
    generated.set(revision, (await generateTypes({ schema: schemaPath(revision), out: temp.dir, extensions })).outDir);
  }
});
after(() => temp.remove());

describe("every schema in ../shared/schemas generates code that compiles under tsc --strict", () => {
  for (const { revision } of REVISIONS) {
    test(revision, SLOW, async () => {
      const dir = generated.get(revision)!;
      const run = await tscStrict(["types.ts", "methods.ts", "capabilities.ts"].map((file) => join(dir, file)));
      assert.equal(run.status, 0, explain(run));
    });
  }
});

test("no description can end a doc comment early", SLOW, async () => {
  const dir = tempFolder("mcp-gen-comment");
  try {
    const schema = editedSchema(schemaPath("2026-07-28"), dir.dir, "2026-12-01", (s) => {
      s.$defs.Cursor.description = "An opaque token */ export const broken = 1; /* the end";
    });
    const report = await generateTypes({ schema, out: dir.dir });
    assert.equal(report.identity.pinned, false);
    const types = readFileSync(join(report.outDir, "types.ts"), "utf8");
    assert.match(types, /An opaque token \*\\\/ export const broken = 1;/);
    assert.doesNotMatch(types, /^export const broken/m);
    const run = await tscStrict([join(report.outDir, "types.ts")]);
    assert.equal(run.status, 0, explain(run));
  } finally {
    dir.remove();
  }
});

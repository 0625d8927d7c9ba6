/**
 * The tasks extension merged by `mcp-gen types`, from outside: the merged output compiles
 * under tsc --strict, and a clashing extension stops the CLI, run as its own process, in one
 * line (the merge itself is checked in process by test/cli/generate/extend.test.ts).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { generateTypes } from "../../../../cli/generate/index.js";
import { listFiles } from "../../../../cli/toolbox/files.js";
import { schemaPath } from "../../../support/schemas.js";
import { explain, runMcpGen, tempFolder, tscStrict } from "../../../cli/generate/helpers.js";

const SLOW = { timeout: 180_000 };
const TASKS = "io.modelcontextprotocol/tasks";
const core = () => schemaPath("2026-07-28");

let temp: ReturnType<typeof tempFolder>;
let withTasks: string;
before(async () => {
  temp = tempFolder("mcp-gen-extend-compile");
  withTasks = (await generateTypes({ schema: core(), out: join(temp.dir, "with"), extensions: [TASKS] })).outDir;
});
after(() => temp.remove());

test("the merged output compiles under tsc --strict", SLOW, async () => {
  const run = await tscStrict(["types.ts", "methods.ts", "capabilities.ts"].map((file) => join(withTasks, file)));
  assert.equal(run.status, 0, explain(run));
});

test("an extension that clashes with a core definition fails in one line naming it, and writes nothing", SLOW, async () => {
  const clash = join(temp.dir, "clash.json");
  writeFileSync(clash, JSON.stringify({ "x-mcp-extension": "com.example/clash", $defs: { Tool: { type: "string" } } }));
  const out = join(temp.dir, "clash-out");
  const run = await runMcpGen(["types", "--schema", core(), "--out", out, "--extension", clash]);
  assert.equal(run.status, 1, explain(run));
  const lines = run.stderr.trim().split("\n");
  assert.match(lines[0], /extension com\.example\/clash clashes with the core schema at \$defs\.Tool\.type: "object" in the core, "string" in /);
  assert.deepEqual(
    listFiles(temp.dir).filter((path) => path.startsWith("clash-out")),
    [],
  );
});

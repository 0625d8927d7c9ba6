/**
 * `mcp-gen diff` in a default scaffold, as a user runs it: against the revision it moved
 * from (2025-11-25), whose changes its tools and resources use, and against a derived next
 * revision that only adds a list-changed kind, which it uses none of.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { explain, runCreate, runMcpGen, schemasDir, tempFolder, type Run } from "../../../cli/scaffold/helpers.js";
import { FUTURE_KIND, FUTURE_REVISION, futureSchemaText } from "../../../support/future-schema.js";

const SLOW = { timeout: 180_000 };

let temp: ReturnType<typeof tempFolder>;
let app: string;
let schemas: string;

function diff(args: string[]): Run {
  return runMcpGen(["diff", ...args], app, { MCP_SCHEMAS_DIR: schemas });
}

before(() => {
  temp = tempFolder("mcp-gen-diff-command");
  const created = runCreate(["app", "--yes", "--no-install", "--no-git"], temp.dir);
  assert.equal(created.status, 0, explain(created));
  app = join(temp.dir, "app");
  // The pinned schemas, and the derived revision beside them.
  schemas = join(temp.dir, "schemas");
  mkdirSync(join(schemas, FUTURE_REVISION), { recursive: true });
  for (const revision of readdirSync(schemasDir())) symlinkSync(join(schemasDir(), revision), join(schemas, revision));
  writeFileSync(join(schemas, FUTURE_REVISION, "schema.json"), futureSchemaText());
}, SLOW);
after(() => temp.remove());

test("mcp-gen diff 2025-11-25 2026-07-28 names the methods added and removed, the tools' changed result fields and their file and line, and exits 1", SLOW, () => {
  const run = diff(["2025-11-25", "2026-07-28"]);
  assert.equal(run.status, 1, explain(run));
  for (const line of ["- initialize (client request)", "+ server/discover (client request)", "+ subscriptions/listen (client request)"]) {
    assert.ok(run.stdout.includes(`  ${line}\n`), `${line}\n${explain(run)}`);
  }
  assert.match(run.stdout, /^ {2}src\/tools\/ask-name\.ts:\d+ {2}tool ask_name\n {4}method tools\/call: .*\+ result\.resultType/m);
  assert.match(run.stdout, /^ {2}src\/tools\/ask-name\.ts:\d+ {2}tool ask_name\n {4}method elicitation\/create: removed$/m);
  assert.match(run.stderr, /^error: the project uses what 2026-07-28 changed or removed: \d+ uses at \d+ places/m);
});

test("--json prints one JSON document with the same changes and the project's uses", SLOW, () => {
  const run = diff(["2025-11-25", "2026-07-28", "--json"]);
  assert.equal(run.status, 1, explain(run));
  const report = JSON.parse(run.stdout);
  const methods = (change: string) => report.changes.filter((entry: any) => entry.area === "method" && entry.change === change).map((entry: any) => entry.name);
  assert.ok(methods("removed").includes("initialize"));
  assert.ok(methods("added").includes("server/discover") && methods("added").includes("subscriptions/listen"));
  assert.equal(report.usesChanged, true);
  const call = report.project.affected.find((use: any) => use.file === "src/tools/ask-name.ts" && use.uses === "method tools/call");
  assert.ok(Number.isInteger(call?.line), JSON.stringify(report.project.affected, null, 2));
  assert.deepEqual(call.owner, { kind: "tool", name: "ask_name" });
});

test("against the derived revision it names the new list-changed kind and the handler that could declare it, and exits 0", SLOW, () => {
  const run = diff(["2026-07-28", FUTURE_REVISION]);
  assert.equal(run.status, 0, explain(run));
  assert.ok(run.stdout.includes(`  + ${FUTURE_KIND.method}\n`), explain(run));
  assert.match(run.stdout, new RegExp(`^ {2}subscription kind ${FUTURE_KIND.filterKey} \\(`, "m"));
  assert.match(run.stdout, /^ {4}handler ToolChangesHandler \(src\/handlers\/tool-changes\.ts:\d+\)$/m);
  assert.match(run.stdout, /the project uses nothing that changed/);
  assert.equal(run.stderr, "");
});

test("mcp-gen types --schema adding a revision ends with the diff summary against the newest one listed before it", SLOW, () => {
  // On a copy, so that the project the other tests read keeps its list.
  const copy = join(temp.dir, "added");
  cpSync(app, copy, { recursive: true });
  mkdirSync(join(copy, "schemas"));
  writeFileSync(join(copy, "schemas", "next.json"), futureSchemaText());
  const run = runMcpGen(["types", "--schema", "schemas/next.json", "--protocol-version", FUTURE_REVISION], copy, { MCP_SCHEMAS_DIR: schemasDir() });
  assert.equal(run.status, 0, explain(run));
  const lines = run.stdout.trimEnd().split("\n");
  assert.match(lines.at(-2)!, new RegExp(`^diff: ${FUTURE_REVISION} against 2026-07-28: methods 1 added; .*subscription kinds 1 added; .*the project uses nothing that changed, and could declare 1 new thing$`));
  assert.equal(lines.at(-1), `  (the whole report: mcp-gen diff 2026-07-28 ${FUTURE_REVISION})`);
});

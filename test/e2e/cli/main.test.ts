import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { after, before, test } from "node:test";
import { runMcpGen, tempFolder } from "../../cli/scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
before(() => (temp = tempFolder("mcp-gen-main")));
after(() => temp.remove());

/** Runs mcp-gen in an empty folder and checks the one-line, exit-2, nothing-written answer. */
function refused(args: string[]): string {
  const run = runMcpGen(args, temp.dir);
  assert.equal(run.status, 2, `${args.join(" ")}: ${run.stderr}`);
  assert.equal(run.stdout, "");
  const lines = run.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, run.stderr);
  assert.deepEqual(readdirSync(temp.dir), []);
  return lines[0]!;
}

test("an unknown command is named, with the closest known command", () => {
  assert.equal(refused(["tols"]), 'error: unknown command "tols"; did you mean tool? (run `mcp-gen --help` for usage)');
  assert.match(refused(["handlr", "Audit"]), /unknown command "handlr"; did you mean handler\?/);
  assert.match(refused(["zzzzzz"]), /^error: unknown command "zzzzzz" \(run/);
});

test("an unknown option is named, with the closest option of its command", () => {
  assert.equal(
    refused(["tool", "Weather", "--forse"]),
    "error: unknown option --forse for mcp-gen tool; did you mean --force? (run `mcp-gen tool --help` for its options)",
  );
  assert.match(refused(["resource", "Orders", "--templat", "app://orders/{id}"]), /unknown option --templat for mcp-gen resource; did you mean --template\?/);
  assert.match(refused(["types", "--chek"]), /unknown option --chek for mcp-gen types; did you mean --check\?/);
  assert.match(refused(["--forse"]), /^error: unknown option --forse /);
});

test("a generator run without a name says it needs one, with an example", () => {
  const examples = { tool: "Weather", handler: "Audit", resource: "Orders", prompt: "Summarize", transport: "Socket", app: "Dashboard" };
  for (const [command, example] of Object.entries(examples)) {
    assert.equal(refused([command]), `error: mcp-gen ${command} needs a name, e.g. mcp-gen ${command} ${example}`);
  }
  assert.equal(refused(["tool", "--dry-run"]), "error: mcp-gen tool needs a name, e.g. mcp-gen tool Weather");
});

/**
 * `mcp-gen lint` in a scaffolded project (sharing this checkout's installed packages) with a
 * tool whose input uses `$defs` and a union: the report names the tool, the keyword, the
 * pointer and the providers, in text and JSON; it exits 0 by default and 1 with --strict;
 * with `toolSchemas: "portable"` in src/server.ts the references are gone from what it reads.
 */
import assert from "node:assert/strict";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { repoRoot } from "../../../support/schemas.js";
import { explain, runCreate, runIn, runMcpGen, tempFolder } from "../../../cli/scaffold/helpers.js";

const E2E = { timeout: 240_000 };
let temp: ReturnType<typeof tempFolder>;
let app: string;

/** A tool as a zod or pydantic model often lists it: a shared definition and a union. */
const PLACE_ORDER = `import type { Server } from "../mcp.js";

export function addPlaceOrderTool(server: Server): void {
  server.addTool(
    {
      name: "place_order",
      description: "Orders an item, delivered or picked up.",
      inputSchema: {
        type: "object",
        properties: {
          item: { $ref: "#/$defs/Item" },
          delivery: { oneOf: [{ type: "string", enum: ["pickup"] }, { type: "object", properties: { street: { type: "string" } }, required: ["street"] }] },
        },
        required: ["item", "delivery"],
        $defs: { Item: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] } },
      },
    },
    () => ({ content: [{ type: "text", text: "ordered" }] }),
  );
}
`;

const build = () => runIn(app, join(app, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"]);

before(() => {
  temp = tempFolder("mcp-gen-lint");
  const create = runCreate(["app", "--yes", "--no-install", "--no-git", "--transport", "stdio"], temp.dir);
  assert.equal(create.status, 0, explain(create));
  app = join(temp.dir, "app");
  symlinkSync(join(repoRoot, "node_modules"), join(app, "node_modules"));
  writeFileSync(join(app, "src", "tools", "place-order.ts"), PLACE_ORDER);
  const index = join(app, "src", "tools", "index.ts");
  const registered = readFileSync(index, "utf8")
    .replace(
      'import { addAskNameTool } from "./ask-name.js";',
      'import { addAskNameTool } from "./ask-name.js";\nimport { addPlaceOrderTool } from "./place-order.js";',
    )
    .replace("  addAskNameTool,\n", "  addAskNameTool,\n  addPlaceOrderTool,\n");
  writeFileSync(index, registered);
  const built = build();
  assert.equal(built.status, 0, explain(built));
}, E2E);

after(() => temp?.remove());

test("the report names the tool, the keyword, the pointer and the providers; findings are warnings, exit 0", E2E, () => {
  const run = runMcpGen(["lint"], app);
  assert.equal(run.status, 0, explain(run));
  const section = run.stdout.slice(run.stdout.indexOf('tool "place_order"'));
  assert.match(section, /^tool "place_order"\n {2}gemini\n/);
  assert.match(section, /^ {4}rejected: inputSchema#\/\$defs \(\$defs\): function declarations take an OpenAPI 3\.0 subset/m);
  assert.match(section, /^ {4}rejected: inputSchema#\/properties\/item\/\$ref \(\$ref\)/m);
  assert.match(section, /^ {4}rejected: inputSchema#\/properties\/delivery\/oneOf \(oneOf\)/m);
  assert.match(
    section,
    /^ {2}openai-strict\n(?: {4}.*\n)*? {4}rejected: inputSchema#\/properties\/delivery\/oneOf \(oneOf\): strict mode does not support this composition keyword \(rule unconfirmed\)/m,
  );
  assert.match(run.stdout, /^\d+ findings in 3 of 3 tools \(gemini 3, openai-strict \d+\); sources: mcp-gen lint --json$/m);
});

test("--json lists each finding with its tool, side, provider, keyword, pointer and source; --strict exits 1", E2E, () => {
  const run = runMcpGen(["lint", "--json", "--strict"], app);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /^error: \d+ schema findings \(--strict makes each an error\)/);
  const report = JSON.parse(run.stdout) as { tools: string[]; findings: Array<Record<string, unknown>> };
  assert.deepEqual(report.tools, ["toggle_greet", "ask_name", "place_order"]);
  const ref = report.findings.find((finding) => finding["keyword"] === "$ref");
  assert.deepEqual(ref, {
    tool: "place_order",
    side: "inputSchema",
    provider: "gemini",
    keyword: "$ref",
    pointer: "/properties/item/$ref",
    effect: "rejected",
    says: ref!["says"],
    source: "https://ai.google.dev/api/caching#Schema",
    unconfirmed: false,
  });
});

test("the scaffold's npm test prints the findings as warnings and passes", E2E, () => {
  const run = runIn(app, process.execPath, ["--test", "dist/test/tool-schemas.test.js"]);
  assert.equal(run.status, 0, explain(run));
  assert.match(run.stdout, /^# warning: place_order inputSchema at "\/properties\/item\/\$ref" \(\$ref\): gemini rejected/m);
});

test('with toolSchemas: "portable" in src/server.ts, lint reads no $ref or $defs: the union is what is left', E2E, () => {
  const server = join(app, "src", "server.ts");
  writeFileSync(server, readFileSync(server, "utf8").replace('    version: "0.1.0",\n', '    version: "0.1.0",\n    toolSchemas: "portable",\n'));
  const built = build();
  assert.equal(built.status, 0, explain(built));
  const run = runMcpGen(["lint", "--json"], app);
  assert.equal(run.status, 0, explain(run));
  const findings = (JSON.parse(run.stdout) as { findings: Array<{ tool: string; keyword: string }> }).findings.filter(
    (finding) => finding.tool === "place_order",
  );
  assert.deepEqual(
    findings.filter((finding) => finding.keyword === "$ref" || finding.keyword === "$defs"),
    [],
  );
  assert.ok(findings.some((finding) => finding.keyword === "oneOf"));
});

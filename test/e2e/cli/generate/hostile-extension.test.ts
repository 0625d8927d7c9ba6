/**
 * `mcp-gen types --extension <file>` (and an unpinned `--schema`) with a schema mcp-gen does
 * not ship: every string of it reaches the generated files as data. Strings that try to end
 * every literal and comment they land in (test/support/hostile-strings.ts) still give files
 * that compile under --strict and run nothing when imported; members json-schema-to-typescript
 * would print as code, definitions no type can be declared for, deep nesting and $ref cycles
 * are refused in one line naming where, nothing written.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import { hostileStrings, MARKER } from "../../../support/hostile-strings.js";
import { repoRoot } from "../../../support/schemas.js";
import { explain, put, runMcpGen, runNode, tempFolder, tinySchemaText, tscStrict } from "../../../cli/generate/helpers.js";

const SLOW = { timeout: 180_000 };
const tsx = import.meta.resolve("tsx");
const REVISION = "2027-01-26";

let temp: ReturnType<typeof tempFolder>;
let core: string;
before(() => {
  temp = tempFolder("mcp-gen-hostile-extension");
  core = put(join(temp.dir, "core.json"), tinySchemaText());
});
after(() => temp.remove());

/** An object with exactly these own keys, `__proto__` included (a literal would set the prototype). */
const record = (entries: Array<[string, unknown]>): Record<string, unknown> => Object.fromEntries(entries);

/** An extension schema file with these definitions, as JSON text (so `__proto__` keys stay data). */
function extensionFile(name: string, defs: Record<string, unknown>, id = "io.example/hostile"): string {
  return put(join(temp.dir, name), JSON.stringify({ $schema: "https://json-schema.org/draft/2020-12/schema", "x-mcp-extension": id, $defs: defs }));
}

function types(out: string, ...args: string[]) {
  return runMcpGen(["types", "--schema", core, "--protocol-version", REVISION, "--out", out, "--types-only", ...args], temp.dir);
}

/** A request the extension adds to ClientRequest, with a hostile method name. */
function request(name: string, method: string): Array<[string, unknown]> {
  return [
    [`${name}Request`, { type: "object", properties: { method: { type: "string", const: method } }, required: ["method"] }],
    [`${name}Result`, { type: "object", properties: {} }],
  ];
}

test("hostile strings in an extension reach the generated files as data: they compile and importing them runs nothing", SLOW, async () => {
  const [a, b, c, d, e, f, g, h] = hostileStrings(2607, 8);
  const defs = record([
    ["ClientRequest", { anyOf: [{ $ref: "#/$defs/HostileRequest" }, { $ref: "#/$defs/ProtoRequest" }] }],
    ...request("Hostile", a!),
    ...request("Proto", "__proto__"),
    [
      "HostileThing",
      {
        type: "object",
        description: b,
        properties: record([
          [c!, { type: "string", description: d, title: e, enum: [f, g, "plain"] }],
          ["fixed", { const: h }],
          ["patterned", { type: "object", patternProperties: record([[`a*/b*/ globalThis.${MARKER} = "pattern"; /*`, { type: "string" }]]) }],
          ["defaulted", { type: "object", default: record([["__proto__", { polluted: true }]]) }],
        ]),
      },
    ],
  ]);
  const extension = extensionFile("hostile.json", defs, `io.example/hostile\u2028globalThis.${MARKER} = "id"; //`);
  const out = join(temp.dir, "out");
  const run = await types(out, "--extension", extension);
  assert.equal(run.status, 0, explain(run));
  const folder = join(out, "v2701");
  const files = ["types.ts", "methods.ts", "capabilities.ts"].map((file) => join(folder, file));
  const check = await tscStrict(files);
  assert.equal(check.status, 0, explain(check));

  const use = join(temp.dir, "use.mjs");
  writeFileSync(
    use,
    `import { pathToFileURL } from "node:url";
for (const file of process.argv.slice(2)) await import(pathToFileURL(file).href);
const { METHOD_SENDERS, EXTENSIONS } = await import(pathToFileURL(process.argv[3]).href).then(async (methods) => ({ ...methods, ...(await import(pathToFileURL(process.argv[4]).href)) }));
console.log(JSON.stringify({ pwned: globalThis.${MARKER} ?? null, proto: Object.hasOwn(METHOD_SENDERS, "__proto__"), prototypeKept: Object.getPrototypeOf(METHOD_SENDERS) === Object.prototype, extensions: Object.keys(EXTENSIONS).length }));
`,
  );
  const imported = await runNode(["--import", tsx, use, ...files], repoRoot, 60_000);
  assert.equal(imported.status, 0, explain(imported));
  assert.deepEqual(JSON.parse(imported.stdout), { pwned: null, proto: true, prototypeKept: true, extensions: 1 });
});

test("an extension identifier holding a line separator stays inside each file's first-line comment", SLOW, async () => {
  const id = `io.example/ls\u2028globalThis.${MARKER} = "header"; //`;
  const out = join(temp.dir, "header");
  const run = await types(out, "--extension", extensionFile("header.json", { Thing: { type: "object" } }, id));
  assert.equal(run.status, 0, explain(run));
  const capabilities = join(out, "v2701", "capabilities.ts");
  const use = join(temp.dir, "use-header.mjs");
  writeFileSync(use, `await import(${JSON.stringify(pathToFileURL(capabilities).href)});\nconsole.log(JSON.stringify(globalThis.${MARKER} ?? null));\n`);
  const imported = await runNode(["--import", tsx, use], repoRoot, 60_000);
  assert.equal(imported.status, 0, explain(imported));
  assert.equal(imported.stdout.trim(), "null");
  assert.match(readFileSync(capabilities, "utf8"), /^\/\/ generated by mcp-gen from MCP 2027-01-26 .* with io\.example\/ls\\u2028globalThis/);
});

for (const [what, defs, expected] of [
  [
    "a tsType",
    { Thing: { type: "object", properties: { a: { tsType: `string; globalThis.${MARKER} = 1; type T = string` } } } },
    /has "tsType" at \/\$defs\/Thing\/properties\/a\/tsType, which json-schema-to-typescript would print into the generated code as it is \(remove it from the schema/,
  ],
  [
    "a tsEnumNames",
    { Thing: { type: "string", enum: ["a"], tsEnumNames: ["A"] } },
    /has "tsEnumNames" at \/\$defs\/Thing\/tsEnumNames, which json-schema-to-typescript/,
  ],
  [
    "a maxItems that is not a number",
    { Thing: { type: "array", items: { type: "string" }, maxItems: `*/ globalThis.${MARKER} = 1; /*` } },
    /has "maxItems" at \/\$defs\/Thing\/maxItems, which json-schema-to-typescript/,
  ],
  [
    "a definition named with a digit first",
    { "3d_render": { type: "object" } },
    /: \$defs\.3d_render is not a type name: each definition is declared as a TypeScript type of its own name \(rename it in PascalCase/,
  ],
  ["a definition named with code", { "Thing; globalThis.x = 1": { type: "object" } }, /: \$defs\.Thing; globalThis\.x = 1 is not a type name/],
  ["a schema nested 200 deep", { Deep: nested(200) }, /is nested deeper than 64 levels below its definitions \(at \/\$defs\/Deep\/properties\/a\//],
  [
    "a $ref cycle with no type in it",
    { A: { $ref: "#/$defs/B" }, B: { anyOf: [{ $ref: "#/$defs/A" }] } },
    /the definitions A -> B -> A only refer to one another/,
  ],
] as const) {
  test(`an extension with ${what} is refused in one line, nothing written`, SLOW, async () => {
    const out = join(temp.dir, `refused-${what.replace(/\W+/g, "-")}`);
    const run = await types(out, "--extension", extensionFile(`${what.replace(/\W+/g, "-")}.json`, defs));
    assert.equal(run.status, 1, explain(run));
    assert.match(run.stderr, new RegExp(`^error: .*${expected.source}`));
    assert.equal(run.stderr.split("\n").filter(Boolean).length, 1, run.stderr);
    assert.equal(existsSync(out), false);
  });
}

test("an unpinned --schema with a tsType is refused the same way", SLOW, async () => {
  const schema = put(join(temp.dir, "typed-core.json"), tinySchemaText({ Thing: { type: "object", properties: { a: { tsType: "Date" } } } }));
  const out = join(temp.dir, "refused-core");
  const run = await runMcpGen(["types", "--schema", schema, "--protocol-version", REVISION, "--out", out, "--types-only"], temp.dir);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /^error: .*typed-core\.json has "tsType" at \/\$defs\/Thing\/properties\/a\/tsType, which/);
  assert.equal(existsSync(out), false);
});

/** `{ properties: { a: { properties: { a: ... } } } }`, `levels` deep. */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let level = 0; level < levels; level++) schema = { type: "object", properties: { a: schema } };
  return schema;
}

/**
 * `mcp-gen client --from-url` pointed at a server the user does not control: a real
 * Streamable HTTP server on 127.0.0.1 (the project's own runtime) lists tools whose names,
 * titles, descriptions and schemas try to end every literal and comment they land in
 * (test/support/hostile-strings.ts). The client file must compile under --strict, importing
 * it must run nothing, its tools must still be callable, the terminal must see no control
 * character, and schemas no type can be printed for must be refused in one line.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import { createServer, type Server } from "../../../../packages/runtime/src/index.js";
import { serveHttp, type HttpServerHandle } from "../../../../packages/runtime/src/transports/http-server.js";
import { repoRoot } from "../../../support/schemas.js";
import { hostileStrings, MARKER } from "../../../support/hostile-strings.js";
import { explain, runMcpGen, runNode, tempFolder } from "../../../cli/generate/helpers.js";

const SLOW = { timeout: 180_000 };
const tsx = import.meta.resolve("tsx");
const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");

let temp: ReturnType<typeof tempFolder>;
const handles: HttpServerHandle[] = [];

before(() => {
  temp = tempFolder("mcp-gen-hostile-peer");
});
after(async () => {
  for (const handle of handles.splice(0)) await handle.close();
  temp.remove();
});

/** An object with exactly these own keys, `__proto__` included (a literal would set the prototype). */
const record = (entries: Array<[string, unknown]>): Record<string, unknown> => Object.fromEntries(entries);

/** A payload in a member json-schema-to-typescript prints verbatim: statements after a type. */
const code = (tag: string) => `string; globalThis.${MARKER} = "${tag}"; type Pwned${tag} = string`;

/** One tool's input schema, every string in it hostile. */
function hostileSchema(strings: readonly string[]): Record<string, unknown> {
  const [a, b, c, d, e, f] = strings;
  return {
    type: "object",
    title: a,
    description: b,
    properties: record([
      [a!, { type: "string", description: c, title: d, enum: [e, f, "plain"] }],
      [b!, { const: c }],
      ["typed", { tsType: code("tsType") }],
      ["named", { type: "string", enum: ["x", "y"], tsEnumNames: [`x = 1, ${code("enumNames")}`, "y"] }],
      [
        "counted",
        { type: "array", items: { type: "string" }, minItems: `*/ globalThis.${MARKER} = "min"; /*`, maxItems: [`*/ globalThis.${MARKER} = "max"; /*`] },
      ],
      ["patterned", { type: "object", patternProperties: record([[`a*/b*/ globalThis.${MARKER} = "pattern"; /*`, { type: "string" }]]) }],
      ["client", { $ref: "#/$defs/Client" }],
      ["tree", { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } } }],
      ["defaulted", { type: "object", default: record([["__proto__", { polluted: true }]]) }],
    ]),
    $defs: record([
      ["Client", { type: "object", title: "Tools", description: d, properties: { x: { type: "string" } } }],
      ["Node", { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } } }],
      [e!, { type: "string", description: f }],
    ]),
  };
}

/** Names that break identifiers or keys, and names that map to the same type name once made identifiers. */
const FIXED_NAMES = ["3d_render", "3d-render", "3D render", "__proto__", "constructor", "class", "Tools", "Client", "connect_client", "TOOL_NAMES"];

function hostileServer(): Server {
  const server = createServer({ name: "hostile", version: "1.0.0" });
  const strings = hostileStrings(2607, 96);
  const names = [...FIXED_NAMES, ...strings.slice(0, 24)];
  names.forEach((name, index) => {
    const own = strings.slice((index * 6) % 90, ((index * 6) % 90) + 6);
    server.addTool(
      {
        name,
        title: own[0],
        description: own[1],
        inputSchema: hostileSchema(own) as never,
        outputSchema: { tsType: code("output") } as never,
      },
      () => ({ content: [{ type: "text", text: `ran ${name}` }], structuredContent: {} }) as never,
    );
  });
  return server;
}

async function serving(server: Server): Promise<string> {
  const handle = await serveHttp(server);
  handles.push(handle);
  return handle.url;
}

/** A program that imports the client (nothing may run), then calls a tool through it. */
const USE = `import { pathToFileURL } from "node:url";
const client = await import(pathToFileURL(process.argv[2]).href);
const imported = globalThis.${MARKER} ?? null;
const connected = await client.connectClient({ url: process.argv[3] });
const render = await connected.tools["3d_render"]({});
const proto = await connected.tools["__proto__"]({});
await connected.close();
console.log(JSON.stringify({ imported, pwned: globalThis.${MARKER} ?? null, names: client.TOOL_NAMES.length, ran: [render.content[0].text, proto.content[0].text] }));
`;

const STRICT = {
  target: "ES2022",
  module: "NodeNext",
  moduleResolution: "NodeNext",
  lib: ["ES2023"],
  types: ["node"],
  typeRoots: [join(repoRoot, "node_modules", "@types")],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
};

test("a hostile server's tools reach the client file as data: it compiles, importing it runs nothing, its tools are callable", SLOW, async () => {
  const url = await serving(hostileServer());
  const file = join(temp.dir, "client.ts");
  const run = await runMcpGen(["client", "--from-url", url, "--out", file, "--generated", join(repoRoot, "generated")], temp.dir);
  assert.equal(run.status, 0, explain(run));
  assert.match(run.stdout, /^wrote .*client\.ts: a client for MCP 2026-07-28, 34 tools \(3d_render, 3d-render, /);
  // Nothing from the server drives the terminal: no control character but the line ends.
  assert.doesNotMatch(run.stdout.replaceAll("\n", ""), /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/);
  assert.match(run.stderr, /^note: left out inputSchema\/properties\/typed\/tsType of tool "3d_render": json-schema-to-typescript would print it as code$/m);

  const text = readFileSync(file, "utf8");
  // Controls are escaped everywhere; a U+2028 may stay only inside a string literal type, where ES2019 allows it.
  assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f]/, "every control character is escaped in the file");
  for (const line of text.split("\n").filter((line) => /^\s*(\/\/|\/\*\*|\*)/.test(line))) assert.doesNotMatch(line, /[\u2028\u2029]/, line);
  assert.match(text, /export interface Tool3DRenderArguments \{/);
  assert.match(text, /export interface Tool3DRender2Arguments \{/);
  assert.match(text, /\["__proto__"\]: \[\]/, "TOOL_HEADERS keeps __proto__ as a key");

  writeFileSync(join(temp.dir, "tsconfig.json"), JSON.stringify({ compilerOptions: STRICT, files: ["client.ts"] }));
  const check = await runNode([tsc, "-p", join(temp.dir, "tsconfig.json"), "--pretty", "false"], temp.dir, 120_000);
  assert.equal(check.status, 0, explain(check));

  writeFileSync(join(temp.dir, "use.mjs"), USE);
  const use = await runNode(["--import", tsx, join(temp.dir, "use.mjs"), file, url], repoRoot, 60_000);
  assert.equal(use.status, 0, explain(use));
  assert.deepEqual(JSON.parse(use.stdout), { imported: null, pwned: null, names: 34, ran: ["ran 3d_render", "ran __proto__"] });
});

test("a tool name that ends its doc comment and a tsType in its outputSchema stay data: importing the client runs neither", SLOW, async () => {
  const server = createServer({ name: "hostile", version: "1.0.0" });
  const definition = {
    name: `x*/ globalThis.${MARKER} = "name"; /*`,
    description: "ok",
    inputSchema: { type: "object" },
    outputSchema: { tsType: `{}; globalThis.${MARKER} = "tsType"; type Rest = {}` },
  };
  server.addTool(definition as never, () => ({ content: [] }) as never);
  const file = join(temp.dir, "single.ts");
  const run = await runMcpGen(["client", "--from-url", await serving(server), "--out", file, "--generated", join(repoRoot, "generated")], temp.dir);
  assert.equal(run.status, 0, explain(run));
  const use = join(temp.dir, "import-single.mjs");
  writeFileSync(use, `await import(${JSON.stringify(pathToFileURL(file).href)});\nconsole.log(JSON.stringify(globalThis.${MARKER} ?? null));\n`);
  const imported = await runNode(["--import", tsx, use], repoRoot, 60_000);
  assert.equal(imported.status, 0, explain(imported));
  assert.equal(imported.stdout.trim(), "null");
});

/** `{ properties: { a: { properties: { a: ... } } } }`, `levels` deep. */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let level = 0; level < levels; level++) schema = { type: "object", properties: { a: schema } };
  return schema;
}

for (const [what, schema, expected] of [
  [
    "a schema nested 200 deep",
    nested(200),
    /^error: tool "bad\\u001b\[1m": its inputSchema is nested deeper than 64 levels \(at \/properties\/a\/properties\/a\//,
  ],
  [
    "a $ref cycle with no type in it",
    { type: "object", properties: { a: { $ref: "#/$defs/A" } }, $defs: { A: { $ref: "#/$defs/B" }, B: { anyOf: [{ $ref: "#/$defs/A" }] } } },
    /^error: tool "bad\\u001b\[1m": its inputSchema has a \$ref cycle with no type in it \(#\/\$defs\/[AB] -> #\/\$defs\/[AB]\)/,
  ],
  ["a schema that is its own alias", { $ref: "#" }, /^error: tool "bad\\u001b\[1m": its inputSchema has a \$ref cycle with no type in it \(#\)/],
] as const) {
  test(`${what} is refused in one line naming the tool, nothing written`, SLOW, async () => {
    const server = createServer({ name: "deep", version: "1.0.0" });
    server.addTool({ name: "fine", inputSchema: { type: "object" } }, () => ({ content: [] }));
    server.addTool({ name: "bad\u001b[1m", inputSchema: schema as never }, () => ({ content: [] }));
    const file = join(temp.dir, `refused-${what.length}.ts`);
    const run = await runMcpGen(["client", "--from-url", await serving(server), "--out", file, "--generated", join(repoRoot, "generated")], temp.dir);
    assert.equal(run.status, 1, explain(run));
    assert.match(run.stderr, expected);
    assert.equal(run.stderr.split("\n").filter(Boolean).length, 1, run.stderr);
    assert.equal(existsSync(file), false);
  });
}

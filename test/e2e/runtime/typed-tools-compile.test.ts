/**
 * The types `addTool` reads from a tool's schemas, held by the compiler itself: each case
 * is a file compiled with tsc against the runtime source, and a wrong use of an argument
 * or a wrong structured result must be reported at its line.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import { repoRoot } from "../../support/schemas.js";

const TSC = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
let dir: string;

before(() => {
  mkdirSync(join(repoRoot, ".tmp"), { recursive: true });
  // Inside the checkout, so that zod and valibot resolve from its node_modules.
  dir = mkdtempSync(join(repoRoot, ".tmp", "typed-tools-"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Compiles one file that registers tools; returns tsc's error lines for it. */
function compile(name: string, body: string): string[] {
  const runtime = relative(dir, join(repoRoot, "packages", "runtime", "src", "index.js")).replaceAll("\\", "/");
  const file = join(dir, `${name}.ts`);
  const source = [
    `import * as v from "valibot";`,
    `import { z } from "zod";`,
    `import { createServer } from "${runtime.startsWith(".") ? runtime : `./${runtime}`}";`,
    `const server = createServer({ name: "t", version: "1" });`,
    `void v; void z;`,
    body,
  ].join("\n");
  writeFileSync(file, source);
  const tsc = spawnSync(
    process.execPath,
    [
      TSC,
      "--ignoreConfig",
      "--noEmit",
      "--lib",
      "ES2023",
      "--strict",
      "--target",
      "ES2022",
      "--module",
      "NodeNext",
      "--moduleResolution",
      "NodeNext",
      "--skipLibCheck",
      "--types",
      "node",
      file,
    ],
    { cwd: repoRoot, encoding: "utf8" },
  );
  return tsc.stdout.split("\n").filter((line) => line.includes(`${name}.ts(`));
}

/** The line of `body` (counted as in the compiled file) that holds `marker`. */
function lineOf(body: string, marker: string): number {
  return 6 + body.split("\n").findIndex((line) => line.includes(marker));
}

describe("addTool types its handler from the tool's schemas", { timeout: 120_000 }, () => {
  it("correct handlers of every form compile", () => {
    const errors = compile(
      "good",
      `
server.addTool({ name: "a", inputSchema: z.object({ city: z.string() }), outputSchema: z.object({ n: z.number() }) },
  ({ city }) => ({ content: [], structuredContent: { n: city.length } }));
server.addTool({ name: "b", inputSchema: v.object({ city: v.string() }) }, ({ city }) => ({ content: [{ type: "text", text: city.toUpperCase() }] }));
server.addTool({ name: "c", inputSchema: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] } },
  ({ city, days }) => ({ content: [{ type: "text", text: city.toUpperCase() + String(days ?? 1) }] }));
`,
    );
    assert.deepEqual(errors, []);
  });

  it("a zod argument used as the wrong type is a compile error at its line", () => {
    const body = `
server.addTool({ name: "a", inputSchema: z.object({ city: z.string() }) }, ({ city }) => ({
  content: [{ type: "text", text: String(Math.round(city)) }], // WRONG
}));`;
    const errors = compile("zod_wrong", body);
    assert.equal(errors.length, 1, errors.join("\n"));
    assert.match(
      errors[0]!,
      new RegExp(`zod_wrong\\.ts\\(${lineOf(body, "WRONG")},\\d+\\): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'`),
    );
  });

  it("a valibot argument that the schema does not declare is a compile error at its line", () => {
    const body = `
server.addTool({ name: "b", inputSchema: v.object({ city: v.string() }) }, (args) => ({
  content: [{ type: "text", text: args.town }], // WRONG
}));`;
    const errors = compile("valibot_wrong", body);
    assert.equal(errors.length, 1, errors.join("\n"));
    assert.match(errors[0]!, new RegExp(`valibot_wrong\\.ts\\(${lineOf(body, "WRONG")},\\d+\\): error TS2339: Property 'town' does not exist`));
  });

  it("a JSON Schema literal argument used as the wrong type, and an optional one used as required, are compile errors at their lines", () => {
    const body = `
server.addTool({ name: "c", inputSchema: { type: "object", properties: { days: { type: "integer" }, city: { type: "string" } }, required: ["days"] } },
  ({ days, city }) => ({
    content: [{ type: "text", text: days.toUpperCase() }], // WRONG-TYPE
    structuredContent: city.length, // WRONG-OPTIONAL
  }));`;
    const errors = compile("json_wrong", body);
    assert.equal(errors.length, 2, errors.join("\n"));
    assert.match(
      errors[0]!,
      new RegExp(`json_wrong\\.ts\\(${lineOf(body, "WRONG-TYPE")},\\d+\\): error TS2339: Property 'toUpperCase' does not exist on type 'number'`),
    );
    assert.match(errors[1]!, new RegExp(`json_wrong\\.ts\\(${lineOf(body, "WRONG-OPTIONAL")},\\d+\\): error TS18048: 'city' is possibly 'undefined'`));
  });

  it("a prompt's and a resource template's Standard Schema types what get and read receive", () => {
    const body = `
server.addPrompt({ name: "p", arguments: z.object({ place: z.string(), style: z.string().optional() }) }, ({ place, style }) => ({
  messages: [{ role: "user", content: { type: "text", text: place + style.length } }], // WRONG-PROMPT
}));
server.addResourceTemplate({ uriTemplate: "o://{id}", name: "o", variables: v.object({ id: v.pipe(v.string(), v.transform(Number)) }) }, (_uri, { id }) =>
  id.toUpperCase(), // WRONG-TEMPLATE
);`;
    const errors = compile("primitives_wrong", body);
    assert.equal(errors.length, 2, errors.join("\n"));
    assert.match(errors[0]!, new RegExp(`primitives_wrong\\.ts\\(${lineOf(body, "WRONG-PROMPT")},\\d+\\): error TS18048: 'style' is possibly 'undefined'`));
    assert.match(
      errors[1]!,
      new RegExp(`primitives_wrong\\.ts\\(${lineOf(body, "WRONG-TEMPLATE")},\\d+\\): error TS2339: Property 'toUpperCase' does not exist on type 'number'`),
    );
  });

  it("structured content of the wrong type for the output schema is a compile error, in either form", () => {
    const body = `
server.addTool({ name: "d", inputSchema: z.object({}), outputSchema: z.object({ n: z.number() }) }, () => ({
  content: [], structuredContent: { n: "three" }, // WRONG-ZOD
}));
server.addTool({ name: "e", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } }, () => ({
  content: [], structuredContent: { m: 3 }, // WRONG-JSON
}));`;
    const errors = compile("output_wrong", body);
    assert.equal(errors.length, 2, errors.join("\n"));
    assert.match(
      errors[0]!,
      new RegExp(`output_wrong\\.ts\\(${lineOf(body, "WRONG-ZOD")},\\d+\\): error TS2322: Type 'string' is not assignable to type 'number'`),
    );
    assert.match(
      errors[1]!,
      new RegExp(
        `output_wrong\\.ts\\(${lineOf(body, "WRONG-JSON")},\\d+\\): error TS2353: Object literal may only specify known properties, and 'm' does not exist`,
      ),
    );
  });
});

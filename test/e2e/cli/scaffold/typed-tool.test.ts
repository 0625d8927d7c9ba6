/**
 * `mcp-gen tool` writes a tool typed from its one schema, in the form the project chose at
 * create time (`--schema-library zod`, or JSON Schema literals by default): no type
 * assertion, the project compiles and passes its tests, and a schema change that makes the
 * handler's use of an argument wrong is a compile error at that use.
 */
import assert from "node:assert/strict";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Project, SyntaxKind } from "ts-morph";
import { repoRoot } from "../../../support/schemas.js";
import { explain, runCreate, runIn, runMcpGen, tempFolder } from "../../../cli/scaffold/helpers.js";

const E2E = { timeout: 240_000 };
let temp: ReturnType<typeof tempFolder>;
before(() => {
  temp = tempFolder("mcp-gen-typed-tool");
});
after(() => temp.remove());

/** A project made with these create flags, sharing this checkout's installed packages, with `mcp-gen tool Weather` run in it. */
function projectWithWeather(name: string, flags: readonly string[]): string {
  const create = runCreate([name, "--yes", "--no-install", "--no-git", "--transport", "stdio", ...flags], temp.dir);
  assert.equal(create.status, 0, explain(create));
  const app = join(temp.dir, name);
  symlinkSync(join(repoRoot, "node_modules"), join(app, "node_modules"));
  const tool = runMcpGen(["tool", "Weather"], app);
  assert.equal(tool.status, 0, explain(tool));
  return app;
}

const tsc = (app: string) => runIn(app, join(app, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json", "--noEmit"]);

/** Every type assertion in a file (`x as T`, `<T>x`), as its text. */
function assertions(text: string): string[] {
  const file = new Project({ useInMemoryFileSystem: true }).createSourceFile("tool.ts", text);
  return [...file.getDescendantsOfKind(SyntaxKind.AsExpression), ...file.getDescendantsOfKind(SyntaxKind.TypeAssertionExpression)].map((node) =>
    node.getText(),
  );
}

/** The line (1-based) of `text` that holds `marker`. */
const lineOf = (text: string, marker: string) => text.split("\n").findIndex((line) => line.includes(marker)) + 1;

const FORMS = [
  { form: "zod", flags: ["--schema-library", "zod"], dependsOnZod: true, schemaLine: "text: z.string()", wrongSchema: "text: z.number()" },
  {
    form: "JSON Schema",
    flags: [],
    dependsOnZod: false,
    schemaLine: 'text: { type: "string"',
    wrongSchema: 'text: { type: "number"',
  },
] as const;

for (const { form, flags, dependsOnZod, schemaLine, wrongSchema } of FORMS) {
  describe(`mcp-gen tool in a project with ${form} tool schemas`, () => {
    let app: string;
    before(() => {
      app = projectWithWeather(form === "zod" ? "zod-app" : "json-app", flags);
    }, E2E);

    it(`writes the ${form} form with no type assertion, and the project type-checks and passes its tests`, E2E, () => {
      const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
      assert.equal(manifest.dependencies.zod !== undefined, dependsOnZod, "zod is a dependency only when the project chose it");
      const source = readFileSync(join(app, "src", "tools", "weather.ts"), "utf8");
      assert.ok(source.includes(schemaLine), source);
      assert.equal(/from "zod"/.test(source), dependsOnZod);
      assert.deepEqual(assertions(source), []);
      const check = tsc(app);
      assert.equal(check.status, 0, explain(check));
      const tests = runIn(app, "npm", ["test"]);
      assert.equal(tests.status, 0, explain(tests));
      assert.match(tests.stdout, /^ok \d+ - weather answers structured content that matches its outputSchema$/m);
      assert.match(tests.stdout, /^ok \d+ - arguments that break weather's inputSchema get an isError result$/m);
    });

    it(`changing the ${form} input schema so the handler's use of its argument is wrong is a compile error at that use`, E2E, () => {
      const path = join(app, "src", "tools", "weather.ts");
      const source = readFileSync(path, "utf8");
      writeFileSync(path, source.replace(schemaLine, wrongSchema));
      try {
        const check = tsc(app);
        assert.notEqual(check.status, 0, "a number argument spread as a string must not compile");
        const use = lineOf(source, "[...text]");
        assert.match(
          check.stdout,
          new RegExp(`^src/tools/weather\\.ts\\(${use},\\d+\\): error TS2488: Type 'number' must have a '\\[Symbol\\.iterator\\]\\(\\)' method`, "m"),
        );
      } finally {
        writeFileSync(path, source);
      }
    });
  });
}

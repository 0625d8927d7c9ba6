/**
 * `mcp-gen middleware <Name>`: a typed middleware around tools/call and its test, listed in
 * src/middleware/index.ts, which the server the project builds registers. The project
 * compiles and passes the middleware's test at once; the official 1.x SDK client's
 * tools/call over a real stdio pipe passes it; and the compiler refuses the middleware once it
 * reads a tools/call param as the wrong type, or rewrites the result into one that breaks
 * tools/call's result type.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CliError } from "../../../../cli/errors.js";
import { generateMiddleware } from "../../../../cli/scaffold/middleware.js";
import { repoRoot } from "../../../support/schemas.js";
import { explain, runCreate, runIn, runMcpGen, tempFolder } from "../../../cli/scaffold/helpers.js";

const E2E = { timeout: 240_000 };
let temp: ReturnType<typeof tempFolder>;
let app: string;
before(() => {
  temp = tempFolder("mcp-gen-middleware");
  const create = runCreate(["app", "--yes", "--no-install", "--no-git", "--transport", "stdio"], temp.dir);
  assert.equal(create.status, 0, explain(create));
  app = join(temp.dir, "app");
  symlinkSync(join(repoRoot, "node_modules"), join(app, "node_modules"));
});
after(() => temp.remove());

const read = (path: string) => readFileSync(join(app, path), "utf8");
const tsc = (...args: string[]) => runIn(app, join(app, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json", ...args]);
const SOURCE = "src/middleware/audit.ts";

/** Every file of the project but its links, with its text: a refusal must leave this unchanged. */
function snapshot(): Map<string, string> {
  const files = (readdirSync(join(app, "src"), { recursive: true }) as string[]).filter((path) => path.endsWith(".ts"));
  return new Map(files.sort().map((path) => [path, read(join("src", path))]));
}

/** Compiles the project with `edit` made to the middleware's source; the diagnostics, then the source restored. */
function compileEdited(edit: (source: string) => string): { status: number | null; output: string; line: number } {
  const original = read(SOURCE);
  const edited = edit(original);
  assert.notEqual(edited, original, "the edit applies");
  writeFileSync(join(app, SOURCE), edited);
  try {
    const check = tsc("--noEmit");
    const changed = edited.split("\n").findIndex((line, index) => line !== original.split("\n")[index]) + 1;
    return { status: check.status, output: check.stdout + check.stderr, line: changed };
  } finally {
    writeFileSync(join(app, SOURCE), original);
  }
}

test("mcp-gen middleware Audit writes a typed middleware and its test, lists it, and the project compiles and passes that test", E2E, () => {
  const run = runMcpGen(["middleware", "Audit"], app);
  assert.equal(run.status, 0, explain(run));
  assert.equal(run.stdout, "create src/middleware/audit.ts\ncreate test/audit.middleware.test.ts\nupdate src/middleware/index.ts\n");
  assert.match(read("src/middleware/index.ts"), /^import \{ addAuditMiddleware \} from "\.\/audit\.js";$/m);
  assert.match(read("src/middleware/index.ts"), /^ {2}addAuditMiddleware,$/m);
  assert.match(read(SOURCE), /server\.use\("tools\/call", auditMiddleware\(\)\);/);
  const build = tsc();
  assert.equal(build.status, 0, explain(build));
  const tests = runIn(app, process.execPath, ["--test", "dist/test/audit.middleware.test.js", "dist/test/server.test.js"]);
  assert.equal(tests.status, 0, explain(tests));
  assert.match(tests.stdout, /^ok \d+ - the server registers audit \(src\/middleware\/index\.ts\)$/m);
  assert.match(tests.stdout, /^ok \d+ - audit records a call the server refuses, and the client still gets the refusal$/m);
});

test("the built server runs the middleware on the official 1.x client's tools/call over stdio", E2E, async () => {
  assert.ok(read("src/middleware/index.ts").includes("addAuditMiddleware"), "the first test generated it");
  const transport = new StdioClientTransport({ command: process.execPath, args: ["dist/src/main.js"], cwd: app, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "audited", version: "1.0.0" });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: "toggle_greet", arguments: {} });
    assert.notEqual(result.isError, true, JSON.stringify(result));
  } finally {
    await client.close();
  }
  const entries = stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { tool: string; outcome: string; ms: number });
  assert.deepEqual(
    entries.map(({ tool, outcome }) => ({ tool, outcome })),
    [{ tool: "toggle_greet", outcome: "complete" }],
    stderr,
  );
});

test("the compiler refuses the middleware once it reads a tools/call param as the wrong type", E2E, () => {
  const check = compileEdited((source) => source.replace("const started = performance.now();", "const started = performance.now();\n    const wrong: number = ctx.params.name;"));
  assert.notEqual(check.status, 0, check.output);
  assert.match(check.output, new RegExp(`src/middleware/audit\\.ts\\(${check.line},\\d+\\): error TS2322: Type 'string' is not assignable to type 'number'`));
});

test("the compiler refuses the middleware once it rewrites the result into one that breaks tools/call's result type", E2E, () => {
  const check = compileEdited((source) => source.replace("      return result;", '      return { ...result, content: [{ type: "text", text: 42 }] };'));
  assert.notEqual(check.status, 0, check.output);
  assert.match(check.output, /src\/middleware\/audit\.ts\(\d+,\d+\): error TS\d+/);
  assert.match(check.output, /'number' is not assignable to type 'string'/);
});

test("bad names, a taken registration and a project without the list are refused in one line, writing nothing", E2E, async () => {
  const before = snapshot();
  for (const name of ["audit", "Interface"]) {
    const run = runMcpGen(["middleware", name], app);
    assert.equal(run.status, 2, explain(run));
    assert.match(run.stderr, /^error: invalid middleware name/);
    assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
  }
  const index = await generateMiddleware({ project: app, name: "Index", force: true, dryRun: false }).then(
    () => assert.fail("Index was accepted"),
    (error: unknown) => error,
  );
  assert.ok(index instanceof CliError);
  assert.equal(index.message, 'invalid middleware name "Index": its file would be src/middleware/index.ts, the list of the project\'s middlewares');
  const again = runMcpGen(["middleware", "Audit"], app);
  assert.equal(again.status, 1, explain(again));
  assert.match(again.stderr, /^error: refusing to overwrite src\/middleware\/audit\.ts, test\/audit\.middleware\.test\.ts in /);
  renameSync(join(app, "src", "middleware", "index.ts"), join(app, "src", "middleware", "list.ts"));
  try {
    const run = runMcpGen(["middleware", "Quota"], app);
    assert.equal(run.status, 1, explain(run));
    assert.match(run.stderr, /^error: this project has no src\/middleware\/index\.ts listing its middleware/);
  } finally {
    renameSync(join(app, "src", "middleware", "list.ts"), join(app, "src", "middleware", "index.ts"));
  }
  assert.deepEqual(snapshot(), before);
});

import assert from "node:assert/strict";
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { CliError } from "../../../../cli/errors.js";
import { generatePrompt, generateResource, generateTool } from "../../../../cli/scaffold/primitive.js";
import { explain, runCreate, runMcpGen, startMcpGen, tempFolder } from "../../../cli/scaffold/helpers.js";

// One project (no install) for the whole file; each test leaves it as it found it or says
// what it added. The generators run in this process where the exit code and the printed
// line are not the point, and as `mcp-gen` where they are.
let temp: ReturnType<typeof tempFolder>;
let app: string;
before(() => {
  temp = tempFolder("mcp-gen-primitive");
  const run = runCreate(["app", "--yes", "--no-install", "--no-git", "--transport", "stdio"], temp.dir);
  assert.equal(run.status, 0, explain(run));
  app = join(temp.dir, "app");
});
after(() => temp.remove());

const SLOW = { timeout: 120_000 };
const write = { force: false, dryRun: false };

/** Every file of the project with its text: a refusal must leave this unchanged. */
function snapshot(): Map<string, string> {
  const files = (readdirSync(app, { recursive: true }) as string[]).filter((path) => path.includes("."));
  return new Map(files.sort().map((path) => [path, readFileSync(join(app, path), "utf8")]));
}

const read = (path: string) => readFileSync(join(app, path), "utf8");

/** Runs `generate` and returns the CliError it refused with. */
async function refusal(generate: () => Promise<unknown>): Promise<CliError> {
  try {
    await generate();
  } catch (error) {
    assert.ok(error instanceof CliError, String(error));
    return error;
  }
  assert.fail("it was accepted");
}

test("a tool, resource or prompt the project already registers is refused in one line, and nothing is written", SLOW, async () => {
  // The user's own registrations, in a module of their own.
  const custom = join(app, "src", "custom.ts");
  writeFileSync(
    custom,
    `import type { Server } from "./mcp.js";\nconst notes = { uri: "app://notes", name: "notes" } as const;\n` +
      `export function addCustom(server: Server) {\n  server.addResource(notes, () => "");\n  server.addPrompt({ name: "summarize" }, () => ({ messages: [] }));\n}\n`,
  );
  try {
    await refusesRegistered();
  } finally {
    rmSync(custom);
  }
});

async function refusesRegistered(): Promise<void> {
  const before = snapshot();
  const cases: Array<[() => Promise<unknown>, RegExp]> = [
    // greet is held by a const in src/tools/toggle-greet.ts and added at run time.
    [
      () => generateTool({ ...write, project: app, name: "Greet" }),
      /^invalid tool name "Greet": a tool named "greet" is already registered in src\/tools\/toggle-greet\.ts$/,
    ],
    [() => generateTool({ ...write, project: app, name: "AskName" }), /^refusing to overwrite src\/tools\/ask-name\.ts in /],
    [
      () => generateResource({ ...write, project: app, name: "Info", uri: "app://about" }),
      /the resource URI "app:\/\/about" is already registered in src\/resources\/about\.ts$/,
    ],
    [
      () => generateResource({ ...write, project: app, name: "Notes", uri: "app://other" }),
      /a resource named "notes" is already registered in src\/custom\.ts$/,
    ],
    [
      () => generateResource({ ...write, project: app, name: "Hello", template: "app://greetings/{language}" }),
      /the URI template "app:\/\/greetings\/\{language\}" is already registered in src\/resources\/greeting\.ts$/,
    ],
    [
      () => generatePrompt({ ...write, project: app, name: "Summarize", arguments: [] }),
      /a prompt named "summarize" is already registered in src\/custom\.ts$/,
    ],
  ];
  for (const [generate, message] of cases) {
    const error = await refusal(generate);
    assert.match(error.message, message);
    assert.doesNotMatch(error.message + (error.hint ?? ""), /\n/);
  }
  assert.deepEqual(snapshot(), before);
}

test("a name whose file would be its kind's list (Index: src/tools/index.ts and so on) is refused in one line, even with force", SLOW, async () => {
  const before = snapshot();
  const force = { force: true, dryRun: false, project: app, name: "Index" };
  const cases: Array<[() => Promise<unknown>, string]> = [
    [() => generateTool(force), "tool"],
    [() => generateResource({ ...force, uri: "app://index" }), "resource"],
    [() => generatePrompt({ ...force, arguments: [] }), "prompt"],
  ];
  for (const [generate, kind] of cases) {
    const error = await refusal(generate);
    assert.equal(error.message, `invalid ${kind} name "Index": its file would be src/${kind}s/index.ts, the list of the project's ${kind}s`);
    assert.equal(error.exitCode, 2);
  }
  assert.deepEqual(snapshot(), before);
});

test("a registration function the list already imports from another module is refused", SLOW, async () => {
  const listPath = join(app, "src", "tools", "index.ts");
  const list = read("src/tools/index.ts");
  writeFileSync(listPath, `import { addAuditTool } from "./legacy.js";\n${list}`);
  const before = snapshot();
  const error = await refusal(() => generateTool({ ...write, project: app, name: "Audit" }));
  assert.equal(error.message, 'invalid tool name "Audit": addAuditTool is already a name in src/tools/index.ts');
  assert.deepEqual(snapshot(), before);
  writeFileSync(listPath, list);
});

test("a project without the kind's list is refused, saying how to add one", SLOW, async () => {
  renameSync(join(app, "src", "prompts", "index.ts"), join(app, "src", "prompts", "list.ts"));
  try {
    const error = await refusal(() => generatePrompt({ ...write, project: app, name: "Summarize", arguments: [] }));
    assert.match(error.message, /^this project has no src\/prompts\/index\.ts listing its prompts/);
    assert.match(error.hint ?? "", /export const prompts = \[\];/);
  } finally {
    renameSync(join(app, "src", "prompts", "list.ts"), join(app, "src", "prompts", "index.ts"));
  }
});

test("each generator adds its module to its list, after the last entry, and keeps every other byte", SLOW, async () => {
  const lists = ["src/tools/index.ts", "src/resources/index.ts", "src/prompts/index.ts"];
  const before = lists.map(read);
  const callsBefore = JSON.parse(read("test/conformance-calls.json"));
  await generateTool({ ...write, project: app, name: "LookupOrder" });
  // The conformance test calls the new tool with arguments its skeleton accepts; the rest of the file is kept.
  const calls = JSON.parse(read("test/conformance-calls.json"));
  assert.deepEqual(calls, { ...callsBefore, calls: { ...callsBefore.calls, lookup_order: [{ text: "hello" }] } });
  await generateResource({ ...write, project: app, name: "Orders", template: "app://orders/{id}{?fields}" });
  await generatePrompt({ ...write, project: app, name: "Summarize", arguments: ["topic,style?"] });
  const added = lists.map((path, index) =>
    read(path)
      .split("\n")
      .filter((line) => !before[index]!.split("\n").includes(line)),
  );
  assert.deepEqual(added, [
    ['import { addLookupOrderTool } from "./lookup-order.js";', "  addLookupOrderTool,"],
    ['import { addOrdersResource } from "./orders.js";', "  addOrdersResource,"],
    ['import { addSummarizePrompt } from "./summarize.js";', "  addSummarizePrompt,"],
  ]);
  const after = lists.map(read);
  // Forced again: the files are written anew, the lists keep one entry each.
  writeFileSync(join(app, "src", "tools", "lookup-order.ts"), "// edited\n");
  await generateTool({ ...write, force: true, project: app, name: "LookupOrder" });
  assert.match(read("src/tools/lookup-order.ts"), /export function addLookupOrderTool\(server: Server\)/);
  assert.deepEqual(lists.map(read), after);
});

test("mcp-gen tool, resource and prompt refuse bad input with one line and exit 2, writing nothing", SLOW, () => {
  const before = snapshot();
  const cases: Array<[string[], RegExp]> = [
    [["tool", "lookup"], /^error: invalid tool name "lookup": use PascalCase/],
    [["tool", "Greet"], /^error: invalid tool name "Greet": a tool named "greet" is already registered/],
    [["resource", "Parts", "--template", "app://parts/{id*}"], /^error: invalid --template "app:\/\/parts\/\{id\*\}": "id\*" uses a level 4 modifier/],
    [["resource", "Orders", "--template", "app://orders/{id"], /^error: invalid --template "app:\/\/orders\/\{id": the "\{" at character 14 is never closed/],
    [["resource", "Parts", "--uri", "parts"], /^error: invalid --uri "parts": it is not an absolute URI/],
    [["prompt", "Review", "--arguments", "code,code?"], /^error: invalid --arguments: "code" is listed twice/],
  ];
  for (const [args, message] of cases) {
    const run = runMcpGen(args, app);
    assert.equal(run.status, 2, explain(run));
    assert.match(run.stderr, message);
    assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
  }
  assert.deepEqual(snapshot(), before);
});

test("--dry-run lists what would be written and writes nothing", SLOW, () => {
  const before = snapshot();
  const run = runMcpGen(["resource", "Parts", "--template", "app://parts/{id}", "--dry-run"], app);
  assert.equal(run.status, 0, explain(run));
  assert.equal(run.stdout, "would create src/resources/parts.ts\nwould create test/parts.resource.test.ts\nwould update src/resources/index.ts\n");
  assert.deepEqual(snapshot(), before);
});

test("existing files are never overwritten without --force, and the list is left alone", SLOW, () => {
  writeFileSync(join(app, "src", "prompts", "kept.ts"), "// mine\n");
  const before = snapshot();
  const run = runMcpGen(["prompt", "Kept"], app);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /^error: refusing to overwrite src\/prompts\/kept\.ts in .* \(pass --force/);
  assert.deepEqual(snapshot(), before);
  const forced = runMcpGen(["prompt", "Kept", "--force"], app);
  assert.equal(forced.status, 0, explain(forced));
  assert.match(read("src/prompts/kept.ts"), /export function addKeptPrompt/);
  assert.match(read("src/prompts/index.ts"), /^ {2}addKeptPrompt,$/m);
});

test("--help describes the three commands and their options once each", SLOW, () => {
  const help = runMcpGen(["--help"], app);
  assert.equal(help.status, 0, explain(help));
  for (const command of ["tool", "resource", "prompt"]) assert.match(help.stdout, new RegExp(`mcp-gen ${command}\\s+Add a`));
  const resource = runMcpGen(["resource", "--help"], app);
  assert.match(resource.stdout, /--uri .*default app:\/\/<name>/);
  assert.match(resource.stdout, /--template .*RFC 6570/);
});

test("tool, resource and prompt runs started together take turns on the project lock: every one is registered", { timeout: 300_000 }, async () => {
  const runs = await Promise.all([
    startMcpGen(["tool", "First"], app),
    startMcpGen(["tool", "Second"], app),
    startMcpGen(["resource", "Third"], app),
    startMcpGen(["prompt", "Fourth"], app),
  ]);
  for (const run of runs) assert.equal(run.status, 0, explain(run));
  assert.match(read("src/tools/index.ts"), /^ {2}addFirstTool,$/m);
  assert.match(read("src/tools/index.ts"), /^ {2}addSecondTool,$/m);
  assert.match(read("src/resources/index.ts"), /^ {2}addThirdResource,$/m);
  assert.match(read("src/prompts/index.ts"), /^ {2}addFourthPrompt,$/m);
  assert.ok(!readdirSync(app).includes(".mcp-gen.lock"), "the lock is gone once all have finished");
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { addListEntry, extendEventTopics, namesInScope, registerHandler } from "../../../cli/scaffold/register.js";

const audit = { className: "AuditHandler", moduleSpecifier: "./audit.js" };

/** The text with the given whole lines removed, to compare everything else byte for byte. */
function without(text: string, ...lines: string[]): string {
  return text
    .split("\n")
    .filter((line) => !lines.includes(line))
    .join("\n");
}

const userStyled = `import type {HandlerFactory} from './types.js'
import { ToolChangesHandler } from './tool-changes.js' // the sample

// odd   spacing   kept
export const handlers: HandlerFactory[] = [
    (events) => new ToolChangesHandler(events, {verbose: true})   // keep me here
]
const   untouched =   [1,2,
  3]
`;

test("registration adds one import and one list entry and leaves every other byte as it was", async () => {
  const edited = await registerHandler(userStyled, audit);
  const importLine = "import { AuditHandler } from './audit.js'";
  assert.equal(
    without(edited, importLine, "    (events) => new AuditHandler(events)"),
    userStyled.replace("true})   // keep me here", "true}),   // keep me here"),
  );
  const lines = edited.split("\n");
  assert.equal(lines.indexOf(importLine), 2, "the import goes after the last import");
  assert.equal(lines[7], "    (events) => new AuditHandler(events)", "the entry goes after the last one, at its indentation");
});

test("registration follows the file's quotes, semicolons and trailing commas", async () => {
  const prettierStyled = `import { First } from "./first.js";\n\nexport const handlers = [\n  (events) => new First(events),\n];\n`;
  const edited = await registerHandler(prettierStyled, audit);
  assert.equal(
    edited,
    `import { First } from "./first.js";\nimport { AuditHandler } from "./audit.js";\n\nexport const handlers = [\n  (events) => new First(events),\n  (events) => new AuditHandler(events),\n];\n`,
  );
});

test("an empty list gets its first entry before the closing bracket, keeping a comment in it", async () => {
  const empty = `export const handlers = [\n  // add handlers here\n];\n`;
  assert.equal(
    await registerHandler(empty, audit),
    `import { AuditHandler } from "./audit.js";\nexport const handlers = [\n  // add handlers here\n  (events) => new AuditHandler(events),\n];\n`,
  );
  assert.equal(
    await registerHandler(`export const handlers = [];\n`, audit),
    `import { AuditHandler } from "./audit.js";\nexport const handlers = [\n  (events) => new AuditHandler(events),\n];\n`,
  );
});

test("a list written on one line grows on that line", async () => {
  const oneLine = `import { A } from "./a.js";\nexport const handlers = [(events) => new A(events)];\n`;
  assert.match(
    await registerHandler(oneLine, audit),
    /^export const handlers = \[\(events\) => new A\(events\), \(events\) => new AuditHandler\(events\)\];$/m,
  );
});

test("a handler already in the list leaves the file unchanged", async () => {
  const once = await registerHandler(userStyled, audit);
  assert.equal(await registerHandler(once, audit), once);
});

test("a file without a handlers list is refused with a hint", async () => {
  await assert.rejects(
    registerHandler(`export const server = 1;\n`, audit),
    (error: unknown) => error instanceof CliError && /export const handlers = \[\.\.\.\]/.test(error.message) && /by hand/.test(error.hint ?? ""),
  );
});

test("the names in scope are every import and top-level declaration, repeats included", async () => {
  const text = `import type { A, B as C } from "./a.js";\nimport D from "d";\nimport * as E from "e";\nexport class F {}\nconst G = 1, H = 2;\nexport type A = string;\n`;
  assert.deepEqual(await namesInScope(text), [
    { name: "A", from: "./a.js" },
    { name: "C", from: "./a.js" },
    { name: "D", from: "d" },
    { name: "E", from: "e" },
    { name: "F" },
    { name: "G" },
    { name: "H" },
    { name: "A" },
  ]);
});

test("the handler's topics are added to AppEvents, and only once", async () => {
  const events = `import { InProcessEventSource } from "./runtime.js";\n\nexport type AppEvents = {\n  tools: { reason: string };\n};\n`;
  const edited = await extendEventTopics(events, "AuditEvents", "./handlers/audit.js");
  assert.equal(
    edited,
    `import { InProcessEventSource } from "./runtime.js";\nimport type { AuditEvents } from "./handlers/audit.js";\n\nexport type AppEvents = {\n  tools: { reason: string };\n} & AuditEvents;\n`,
  );
  assert.equal(await extendEventTopics(edited, "AuditEvents", "./handlers/audit.js"), edited);
  assert.equal(await extendEventTopics("export const x = 1;\n", "AuditEvents", "./a.js"), "export const x = 1;\n");
});

test("a list of registration functions gets the bare name as its entry, and only once", async () => {
  const tools = `import { addGreetTool } from "./greet.js";\n\nexport const tools: ToolRegistration[] = [\n  // comment\n  addGreetTool,\n];\n`;
  const target = { path: "src/tools/index.ts", list: "tools", imported: "addLookupTool", moduleSpecifier: "./lookup.js", byHand: "by hand" };
  const edited = await addListEntry(tools, target);
  assert.equal(
    edited,
    `import { addGreetTool } from "./greet.js";\nimport { addLookupTool } from "./lookup.js";\n\nexport const tools: ToolRegistration[] = [\n  // comment\n  addGreetTool,\n  addLookupTool,\n];\n`,
  );
  assert.equal(await addListEntry(edited, target), edited);
  await assert.rejects(
    addListEntry("export const other = [];\n", target),
    (error: unknown) => error instanceof CliError && /no `export const tools = \[\.\.\.\]` in src\/tools\/index\.ts/.test(error.message),
  );
});

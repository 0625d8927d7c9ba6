import assert from "node:assert/strict";
import { test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { extendEventTopics, registerHandler } from "../../../cli/scaffold/register.js";

const audit = { className: "AuditHandler", moduleSpecifier: "./handlers/audit.js" };

/** The text with the given whole lines removed, to compare everything else byte for byte. */
function without(text: string, ...lines: string[]): string {
  return text
    .split("\n")
    .filter((line) => !lines.includes(line))
    .join("\n");
}

const userStyled = `import {createServer} from './generated/v2607/runtime/index.js'
import { ToolChangesHandler } from './handlers/tool-changes.js' // the sample

// odd   spacing   kept
export function createAppServer(events = makeEvents()) {
    const server = createServer({name: 'x', version: '1'})
    server.addSubscriptionHandler(new ToolChangesHandler(events, {verbose: true}))   // keep me here
    const   untouched =   [1,2,
      3]
    return server
}
`;

test("registration adds one import and one call and leaves every other byte as it was", async () => {
  const edited = await registerHandler(userStyled, "src/server.ts", audit);
  const importLine = "import { AuditHandler } from './handlers/audit.js'";
  const callLine = "    server.addSubscriptionHandler(new AuditHandler(events, {verbose: true}))";
  assert.equal(without(edited, importLine, callLine), userStyled);
  const lines = edited.split("\n");
  assert.equal(lines.indexOf(importLine), 2, "the import goes after the last import");
  assert.equal(lines.indexOf(callLine), 8, "the call goes after the last registration, past its comment");
});

test("registration follows the file's quotes and semicolons", async () => {
  const prettierStyled = `import { createServer } from "./runtime.js";\n\nexport function make() {\n  const server = createServer();\n  server.addSubscriptionHandler(new First());\n  return server;\n}\n`;
  const edited = await registerHandler(prettierStyled, "src/server.ts", audit);
  assert.match(edited, /^import \{ AuditHandler \} from "\.\/handlers\/audit\.js";$/m);
  assert.match(edited, /^ {2}server\.addSubscriptionHandler\(new AuditHandler\(\)\);$/m);
});

test("a handler already registered leaves the file unchanged", async () => {
  const once = await registerHandler(userStyled, "src/server.ts", audit);
  assert.equal(await registerHandler(once, "src/server.ts", audit), once);
});

test("a server without any registration to follow is refused with a hint", async () => {
  await assert.rejects(
    registerHandler(`export const server = 1;\n`, "src/server.ts", audit),
    (error: unknown) => error instanceof CliError && /addSubscriptionHandler/.test(error.message) && /by hand/.test(error.hint ?? ""),
  );
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

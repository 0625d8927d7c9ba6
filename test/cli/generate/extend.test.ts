import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { generateTypes } from "../../../cli/generate/index.js";
import { extensionLocation, KNOWN_EXTENSIONS } from "../../../cli/generate/extend.js";
import { repoRoot, schemaPath } from "../../support/schemas.js";
import { tempFolder } from "./helpers.js";

const SLOW = { timeout: 180_000 };
const TASKS = "io.modelcontextprotocol/tasks";
const core = () => schemaPath("2026-07-28");

let temp: ReturnType<typeof tempFolder>;
let withTasks: string;
let without: string;
before(async () => {
  temp = tempFolder("mcp-gen-extend");
  withTasks = (await generateTypes({ schema: core(), out: join(temp.dir, "with"), extensions: [TASKS] })).outDir;
  without = (await generateTypes({ schema: core(), out: join(temp.dir, "without") })).outDir;
});
after(() => temp.remove());

const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");

test("a known extension name resolves to mcp-gen's own schema, any other value is a path", () => {
  assert.equal(extensionLocation(TASKS), join(repoRoot, KNOWN_EXTENSIONS[TASKS]));
  assert.equal(extensionLocation("./my-extension.json"), "./my-extension.json");
});

test("the merged extension's methods, filter key, notification and error code appear in the maps", () => {
  const methods = read(withTasks, "methods.ts");
  for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) assert.match(methods, new RegExp(`"${method}": \\{`), method);
  assert.match(methods, /"notifications\/tasks": TaskStatusNotification;/);
  assert.match(methods, /"tasks\/get": \{\n\s+request: GetTaskRequest;\n\s+params: GetTaskRequestParams;\n\s+result: GetTaskResult;/);
  const capabilities = read(withTasks, "capabilities.ts");
  assert.match(capabilities, /taskIds: \{[^}]*idParam: "taskId",[^}]*notificationMethod: "notifications\/tasks",[^}]*value: "ids",/s);
  assert.match(capabilities, /TasksExtensionRequiredError: -32021,/);
  assert.match(capabilities, /"notifications\/tasks",\n/, "a stream method");
  assert.match(capabilities, /export const EXTENSIONS = \{\n  "io\.modelcontextprotocol\/tasks": \{/);
  assert.match(capabilities, /requests: \["tasks\/cancel", "tasks\/get", "tasks\/update"\]/);
  assert.match(capabilities, /"tasks\/get": "taskId",/, "the Mcp-Name param");
  const types = read(withTasks, "types.ts");
  assert.match(types, /export interface CreateTaskResult \{[^}]*resultType: "task";/s);
  assert.match(types, /export interface SubscriptionFilter \{[\s\S]*?taskIds\?: string\[\];/);
});

// Byte for byte, "unchanged" is held by the draft's golden maps and the committed generated/v2511,
// both made before extensions existed; here: no trace of the extension without it.
test("without the extension the output is unchanged: the core alone gives none of its facts", () => {
  const capabilities = read(without, "capabilities.ts");
  assert.doesNotMatch(capabilities, /EXTENSIONS|taskIds|-32021,\n.*Tasks/);
  assert.doesNotMatch(read(without, "methods.ts"), /tasks\//);
  assert.doesNotMatch(read(without, "mcp-gen.manifest.json"), /"extensions"|io\.modelcontextprotocol\/tasks/);
});

test("the manifest records each extension's sha256, so --check notices a changed extension", SLOW, async () => {
  const manifest = JSON.parse(read(withTasks, "mcp-gen.manifest.json"));
  assert.equal(manifest.inputs.extensions[0].id, TASKS);
  assert.match(manifest.inputs.extensions[0].sha256, /^[0-9a-f]{64}$/);
  const edited = join(temp.dir, "tasks-edited.json");
  const schema = JSON.parse(readFileSync(extensionLocation(TASKS), "utf8"));
  writeFileSync(edited, JSON.stringify(schema));
  const out = join(temp.dir, "with");
  assert.deepEqual((await generateTypes({ schema: core(), out, extensions: [TASKS], check: true })).stale, [], "fresh against the same extension");
  const report = await generateTypes({ schema: core(), out, extensions: [edited], check: true });
  assert.ok(report.stale.length > 0, "the same definitions from other bytes: the header changes, so files are stale");
  const plain = await generateTypes({ schema: core(), out, check: true });
  assert.ok(plain.stale.includes("capabilities.ts"), "dropping the extension is noticed");
});

test("an extension file without an identifier is refused in one line", async () => {
  const nameless = join(temp.dir, "nameless.json");
  writeFileSync(nameless, JSON.stringify({ $defs: { Extra: { type: "string" } } }));
  await assert.rejects(generateTypes({ schema: core(), out: join(temp.dir, "nameless-out"), extensions: [nameless] }), /names no extension/);
});

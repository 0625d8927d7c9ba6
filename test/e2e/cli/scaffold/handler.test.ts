import assert from "node:assert/strict";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { explain, runCreate, runMcpGen, tempFolder } from "../../../cli/scaffold/helpers.js";

// One project (no install) for the whole file; each test leaves it as it found it or
// says what it added.
let temp: ReturnType<typeof tempFolder>;
let app: string;
before(() => {
  temp = tempFolder("mcp-gen-handler");
  const run = runCreate(["app", "--yes", "--no-install", "--no-git", "--transport", "stdio"], temp.dir);
  assert.equal(run.status, 0, explain(run));
  app = join(temp.dir, "app");
});
after(() => temp.remove());

const SLOW = { timeout: 60_000 };

/** Every file of the project with its text: a refusal must leave this unchanged. */
function snapshot(): Map<string, string> {
  const files = (readdirSync(app, { recursive: true }) as string[]).filter((path) => path.includes("."));
  return new Map(files.sort().map((path) => [path, readFileSync(join(app, path), "utf8")]));
}

test("bad handler names are refused before any file is touched", SLOW, () => {
  const before = snapshot();
  for (const name of ["../x", "1abc", "Interface", "Server", "audit"]) {
    const run = runMcpGen(["handler", name], app);
    assert.equal(run.status, 2, explain(run));
    assert.match(run.stderr, /^error: invalid handler name/);
  }
  assert.deepEqual(snapshot(), before);
});

test("a name whose identifiers the project already holds is refused in one line, before any file is touched", SLOW, () => {
  // The user's own AuditHandler, listed from another module: `handler Audit` would shadow it.
  writeFileSync(join(app, "src", "handlers", "audit-log.ts"), "export class AuditHandler {}\n");
  const listPath = join(app, "src", "handlers", "index.ts");
  const list = readFileSync(listPath, "utf8");
  writeFileSync(listPath, `import { AuditHandler } from "./audit-log.js";\n${list}`);
  const before = snapshot();
  const cases: Array<[string, RegExp]> = [
    ["App", /AppEvents is already a name in src\/events\.ts/],
    ["Subscription", /SubscriptionHandler is already a name in src\/handlers\/subscription\.ts/],
    ["Audit", /AuditHandler is already a name in src\/handlers\/index\.ts/],
  ];
  for (const [name, message] of cases) {
    const run = runMcpGen(["handler", name], app);
    assert.equal(run.status, 2, explain(run));
    assert.match(run.stderr, new RegExp(`^error: invalid handler name "${name}": ${message.source}`));
    assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
  }
  assert.deepEqual(snapshot(), before);
  writeFileSync(listPath, list);
  rmSync(join(app, "src", "handlers", "audit-log.ts"));
});

test("a name whose file would be the list it is registered in (Index: src/handlers/index.ts) is refused in one line, --force or not", SLOW, () => {
  const before = snapshot();
  for (const args of [
    ["handler", "Index"],
    ["handler", "Index", "--force"],
  ]) {
    const run = runMcpGen(args, app);
    assert.equal(run.status, 2, explain(run));
    assert.match(
      run.stderr,
      /^error: invalid handler name "Index": its file would be src\/handlers\/index\.ts, the list of the project's handlers \(choose another name/,
    );
    assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
  }
  assert.deepEqual(snapshot(), before);
});

test("an unknown notification kind is refused, listing the kinds the project's revision has", SLOW, () => {
  const run = runMcpGen(["handler", "Audit", "--notifications", "tools,logs"], app);
  assert.equal(run.status, 2, explain(run));
  assert.match(run.stderr, /unknown notification kind logs \(choose from prompts, resource-updates, resources, tools\)/);
});

test("outside a project the generator refuses and says where to run it", SLOW, () => {
  const run = runMcpGen(["handler", "Audit"], temp.dir);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /is not a project made by create-mcp-handler.*--project/);
});

test("--dry-run lists what would be written and writes nothing", SLOW, () => {
  const before = snapshot();
  const run = runMcpGen(["handler", "Audit", "--notifications", "resources", "--dry-run"], app);
  assert.equal(run.status, 0, explain(run));
  assert.equal(
    run.stdout,
    "would create src/handlers/audit.ts\nwould create test/audit.test.ts\nwould update src/handlers/index.ts\nwould update src/events.ts\n",
  );
  assert.deepEqual(snapshot(), before);
});

test("new files follow the project's prettier config; the edited handler list keeps its own formatting", SLOW, () => {
  writeFileSync(join(app, ".prettierrc.json"), JSON.stringify({ singleQuote: true, useTabs: true }));
  const listBefore = readFileSync(join(app, "src", "handlers", "index.ts"), "utf8");
  const run = runMcpGen(["handler", "Styled", "--notifications", "prompts"], app);
  assert.equal(run.status, 0, explain(run));
  const handler = readFileSync(join(app, "src", "handlers", "styled.ts"), "utf8");
  assert.match(handler, /^\} from '\.\.\/mcp\.js';$/m);
  assert.match(handler, /^\tconstructor\(/m);
  const list = readFileSync(join(app, "src", "handlers", "index.ts"), "utf8");
  const added = list.split("\n").filter((line) => !listBefore.split("\n").includes(line));
  assert.deepEqual(added, ['import { StyledHandler } from "./styled.js";', "  (events) => new StyledHandler(events),"]);
});

test("existing files are never overwritten without --force, and nothing else is written", SLOW, () => {
  writeFileSync(join(app, "src", "handlers", "kept.ts"), "// mine\n");
  const before = snapshot();
  const run = runMcpGen(["handler", "Kept"], app);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /^error: refusing to overwrite src\/handlers\/kept\.ts in .* \(pass --force/);
  assert.deepEqual(snapshot(), before, "server.ts and events.ts unchanged too");
  const forced = runMcpGen(["handler", "Kept", "--force"], app);
  assert.equal(forced.status, 0, explain(forced));
  assert.match(readFileSync(join(app, "src", "handlers", "kept.ts"), "utf8"), /export class KeptHandler/);
});

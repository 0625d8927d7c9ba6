/**
 * `mcp-gen prebundle` in a new stdio project, through what clients start (`node
 * dist/src/main.js`) and the official client with its default options: `npm run build` makes
 * the server run from dist/server.js, and after a plain `tsc` it runs from its modules, never
 * from the bundle the edit made stale.
 */
import assert from "node:assert/strict";
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { explain, npmEnv, runCreate, runIn, tempFolder } from "../../../cli/scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
let app: string;

before(
  () => {
    temp = tempFolder("mcp-gen-prebundle");
    const created = runCreate(["app", "--yes", "--no-git", "--transport", "stdio"], temp.dir);
    assert.equal(created.status, 0, explain(created));
    app = join(temp.dir, "app");
  },
  { timeout: 240_000 },
);
after(() => temp.remove());

const E2E = { timeout: 240_000 };

/** toggle_greet's description, as `node dist/src/main.js` serves it to the official client. */
async function servedDescription(): Promise<string | undefined> {
  const client = new Client({ name: "prebundle-test", version: "0.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ["dist/src/main.js"], cwd: app, stderr: "pipe" }));
  try {
    return (await client.listTools()).tools.find((tool) => tool.name === "toggle_greet")?.description;
  } finally {
    await client.close();
  }
}

/** Runs `serve` with dist/src/tools/ moved away: only a server running from the bundle has its tools then. */
async function withoutToolModules<T>(serve: () => Promise<T>): Promise<T> {
  const tools = join(app, "dist", "src", "tools");
  renameSync(tools, `${tools}.away`);
  try {
    return await serve();
  } finally {
    renameSync(`${tools}.away`, tools);
  }
}

/** Gives toggle_greet a new description in src/. */
function describeToggle(description: string): void {
  const file = join(app, "src", "tools", "toggle-greet.ts");
  const source = readFileSync(file, "utf8");
  const edited = source.replace(/(name: "toggle_greet",\s*description: )"[^"]*"/, (_, before: string) => `${before}${JSON.stringify(description)}`);
  assert.notEqual(edited, source, "toggle_greet's description is where the test looks for it");
  writeFileSync(file, edited);
}

test("after npm run build, dist/src/main.js serves from dist/server.js", E2E, async () => {
  const build = runIn(app, "npm", ["run", "build"]);
  assert.equal(build.status, 0, explain(build));
  assert.match(build.stdout, /wrote dist\/server\.js and dist\/server\.js\.map \(\d+ KB\)/);
  assert.match((await withoutToolModules(servedDescription)) ?? "", /^Adds the greet tool/);
});

test("after an edit and a tsc alone, the server runs from its modules and serves the edit, not the stale bundle", E2E, async () => {
  const bundled = statSync(join(app, "dist", "server.js")).mtimeMs;
  describeToggle("Toggles greet (edited, compiled by tsc alone).");
  const tsc = runIn(app, join(app, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"]);
  assert.equal(tsc.status, 0, explain(tsc));
  assert.equal(statSync(join(app, "dist", "server.js")).mtimeMs, bundled, "tsc leaves the bundle as it was");
  assert.equal(await servedDescription(), "Toggles greet (edited, compiled by tsc alone).");
});

test("the next npm run build bundles the edit, and the server runs from the bundle again", E2E, async () => {
  describeToggle("Toggles greet (edited, bundled).");
  const build = runIn(app, "npm", ["run", "build"], 180_000);
  assert.equal(build.status, 0, explain(build));
  assert.equal(await withoutToolModules(servedDescription), "Toggles greet (edited, bundled).");
});

test("mcp-gen prebundle before any build is refused in one line saying to build first", E2E, () => {
  const fresh = runCreate(["unbuilt", "--yes", "--no-git", "--no-install", "--transport", "stdio"], temp.dir);
  assert.equal(fresh.status, 0, explain(fresh));
  const run = runIn(join(temp.dir, "unbuilt"), "mcp-gen", ["prebundle"]);
  assert.equal(run.status, 1, explain(run));
  assert.equal(run.stderr, "error: dist/src/run.js is not built (npm run build runs tsc and then prebundle)\n");
});

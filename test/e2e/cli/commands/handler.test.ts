import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { explain, runCreate, startMcpGen, tempFolder } from "../../../cli/scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
let app: string;
before(() => {
  temp = tempFolder("mcp-gen-handler-command");
  const run = runCreate(["app", "--yes", "--no-install", "--no-git", "--transport", "stdio"], temp.dir);
  assert.equal(run.status, 0, explain(run));
  app = join(temp.dir, "app");
});
after(() => temp.remove());

test("concurrent handler runs on one project take turns: every one that reports success is registered", { timeout: 300_000 }, async () => {
  const names = ["Alpha", "Bravo", "Charlie", "Delta"];
  const runs = await Promise.all(names.map((name) => startMcpGen(["handler", name], app)));
  for (const run of runs) assert.equal(run.status, 0, explain(run));
  const list = readFileSync(join(app, "src", "handlers", "index.ts"), "utf8");
  for (const name of names) {
    assert.match(list, new RegExp(`import \\{ ${name}Handler \\} from "\\./${name.toLowerCase()}\\.js"`), `${name} imported`);
    assert.match(list, new RegExp(`\\(events\\) => new ${name}Handler\\(events\\)`), `${name} registered`);
  }
  assert.ok(!readdirSync(app).includes(".mcp-gen.lock"), "the lock is gone once all have finished");
});

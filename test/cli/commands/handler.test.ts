import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { repoRoot } from "../../support/schemas.js";
import { explain, runCreate, tempFolder, type Run } from "../scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
let app: string;
before(() => {
  temp = tempFolder("mcp-gen-handler-command");
  const run = runCreate(["app", "--yes", "--no-install", "--no-git", "--transport", "stdio"], temp.dir);
  assert.equal(run.status, 0, explain(run));
  app = join(temp.dir, "app");
});
after(() => temp.remove());

/** `mcp-gen handler ...` as its own process, bounded in time. */
function handlerRun(args: string[]): Promise<Run> {
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), join(repoRoot, "cli", "main.ts"), "handler", ...args], {
    cwd: app,
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 240_000,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once("close", (status) => resolve({ status, stdout, stderr })));
}

test("concurrent handler runs on one project take turns: every one that reports success is registered", { timeout: 300_000 }, async () => {
  const names = ["Alpha", "Bravo", "Charlie", "Delta"];
  const runs = await Promise.all(names.map((name) => handlerRun([name])));
  for (const run of runs) assert.equal(run.status, 0, explain(run));
  const list = readFileSync(join(app, "src", "handlers", "index.ts"), "utf8");
  for (const name of names) {
    assert.match(list, new RegExp(`import \\{ ${name}Handler \\} from "\\./${name.toLowerCase()}\\.js"`), `${name} imported`);
    assert.match(list, new RegExp(`\\(events\\) => new ${name}Handler\\(events\\)`), `${name} registered`);
  }
  assert.ok(!readdirSync(app).includes(".mcp-gen.lock"), "the lock is gone once all have finished");
});

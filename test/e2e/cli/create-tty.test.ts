import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { repoRoot } from "../../support/schemas.js";
import { tempFolder } from "../../cli/scaffold/helpers.js";

// A real terminal for create-mcp-handler: script(1) runs it on a pseudo-terminal, and the
// test types at each prompt once the prompt's question has appeared.
const hasScript = spawnSync("script", ["--version"]).status === 0;
const tsx = import.meta.resolve("tsx");

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("create-tty")));
afterEach(() => temp.remove());

/** Runs create-mcp-handler on a terminal, answering each [question, keys] in order. */
function onTerminal(args: string[], answers: Array<[RegExp, string]>): Promise<{ code: number | null; output: string }> {
  const command = `stty cols 100 rows 30; ${process.execPath} --import ${tsx} ${join(repoRoot, "cli", "create.ts")} ${args.join(" ")}`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd: temp.dir, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  let pending = "";
  const steps = [...answers];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
    pending += chunk;
    while (steps.length > 0 && steps[0]![0].test(pending)) {
      const [, keys] = steps.shift()!;
      pending = "";
      setTimeout(() => child.stdin.write(keys), 50);
    }
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  return new Promise((resolve) =>
    child.once("exit", (code) => {
      clearTimeout(killer);
      resolve({ code, output });
    }),
  );
}

const ENTER = "\r";
const DOWN = "\x1b[B";
const BACKSPACE = "\x7f";

test(
  "on a terminal it asks for what the flags left open, checks each answer, and uses them",
  { timeout: 60_000, skip: !hasScript && "needs script(1)" },
  async () => {
    const { code, output } = await onTerminal(
      ["--no-install", "--no-git"],
      [
        [/Where should the project go\?/, `Bad Name${ENTER}`],
        [/not a valid npm package name/, `${BACKSPACE.repeat("Bad Name".length)}tty-app${ENTER}`],
        [/A subscription handler turns your app's events into notifications[^]*Name of the first one/, `Audit${ENTER}`],
        [/Which transport should it serve\?/, `${DOWN}${ENTER}`], // from the default (both) round to stdio
        [/Package manager/, ENTER],
      ],
    );
    assert.equal(code, 0, output);
    assert.doesNotMatch(output, /Install dependencies|Initialise a git repository/, "flags are not asked again");
    assert.match(output, /Next:\r\n\r\n {2}cd tty-app\r\n {2}npm install\r\n {2}npm test\r\n {2}npm start/);
    const app = join(temp.dir, "tty-app");
    assert.ok(existsSync(join(app, "src", "handlers", "audit.ts")));
    assert.ok(!existsSync(join(app, "src", "serve", "http.ts")), "stdio was chosen");
    assert.equal(JSON.parse(readFileSync(join(app, "package.json"), "utf8")).scripts.start, "tsc -p tsconfig.json && mcp-gen prebundle && node dist/src/main.js");
  },
);

test("on a terminal a non-empty folder is only written into when the user says so", { timeout: 60_000, skip: !hasScript && "needs script(1)" }, async () => {
  const app = join(temp.dir, "app");
  mkdirSync(app);
  writeFileSync(join(app, "notes.md"), "mine");
  const { code, output } = await onTerminal(
    ["app", "--transport", "stdio", "--handler", "Audit", "--pm", "npm", "--no-install", "--no-git"],
    [
      [/is not empty\. Write into it anyway\?/, ENTER], // the default answer is no
    ],
  );
  assert.equal(code, 1, output);
  assert.match(output, /error: the folder .*app is not empty/);
  assert.deepEqual(readdirSync(app), ["notes.md"]);
});

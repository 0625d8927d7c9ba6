import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { explain, runCreate, runIn, tempFolder } from "../../../cli/scaffold/helpers.js";

const SLOW = { timeout: 180_000 };
let temp: ReturnType<typeof tempFolder>;
before(() => (temp = tempFolder("mcp-gen-create-git")));
after(() => temp.remove());

/** git's environment for a user whose global config is `config` (and no system config). */
function gitUser(config: string): NodeJS.ProcessEnv {
  const file = join(temp.dir, `gitconfig-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, config);
  return {
    GIT_CONFIG_GLOBAL: file,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: undefined,
    GIT_AUTHOR_EMAIL: undefined,
    GIT_COMMITTER_NAME: undefined,
    GIT_COMMITTER_EMAIL: undefined,
    EMAIL: undefined,
  };
}

function git(dir: string, args: string[]): string {
  const run = spawnSync("git", args, { cwd: dir, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

test("--git makes the scaffold the first commit, by the user's git identity", SLOW, () => {
  const run = runCreate(["mine", "--yes", "--no-install", "--git"], temp.dir, gitUser("[user]\n\tname = Ada\n\temail = ada@example.com\n"));
  assert.equal(run.status, 0, explain(run));
  const app = join(temp.dir, "mine");
  assert.equal(git(app, ["log", "--format=%an <%ae>|%s"]).trim(), "Ada <ada@example.com>|Initial commit from create-mcp-handler");
  assert.equal(git(app, ["status", "--porcelain"]), "", "every file of the scaffold is committed");
  // The blobs went into a pack (the add's bigFileThreshold): the repository is whole, and a
  // later commit is an ordinary one on top.
  git(app, ["fsck", "--full", "--strict"]);
  const packed = Number(/^in-pack: (\d+)$/m.exec(git(app, ["count-objects", "-v"]))?.[1] ?? Number.NaN);
  assert.ok(packed > 0, `the scaffold's blobs are packed (in-pack: ${packed})`);
  writeFileSync(join(app, "README.md"), "changed\n");
  git(app, ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "--quiet", "-am", "second"]);
  assert.match(git(app, ["show", "HEAD~1:README.md"]), /^# mine/m, "the first commit's README is intact");
  assert.doesNotMatch(run.stderr, /note:/);
});

test("--git with no git identity configured commits as create-mcp-handler for that commit only, and says so", SLOW, () => {
  const env = gitUser("");
  const run = runCreate(["anon", "--yes", "--no-install", "--git"], temp.dir, env);
  assert.equal(run.status, 0, explain(run));
  const app = join(temp.dir, "anon");
  assert.equal(git(app, ["log", "--format=%an <%ae>"]).trim(), "create-mcp-handler <create-mcp-handler@users.noreply.invalid>");
  assert.equal(
    spawnSync("git", ["config", "--get", "user.name"], { cwd: app, env: { ...process.env, ...env } }).status,
    1,
    "nothing written to the repository's config",
  );
  assert.match(run.stderr, /^note: the first commit is by create-mcp-handler .*git commit --amend --reset-author/m);
});

test("--git when the first commit fails still creates the project, with one line saying how to commit", SLOW, () => {
  const hooks = join(temp.dir, "hooks");
  mkdirSync(hooks);
  writeFileSync(join(hooks, "pre-commit"), "#!/bin/sh\necho refused by hook >&2\nexit 1\n");
  chmodSync(join(hooks, "pre-commit"), 0o755);
  const run = runCreate(
    ["hooked", "--yes", "--no-install", "--git"],
    temp.dir,
    gitUser(`[user]\n\tname = Ada\n\temail = ada@example.com\n[core]\n\thooksPath = ${hooks}\n`),
  );
  assert.equal(run.status, 0, explain(run));
  const notes = run.stderr.split("\n").filter((line) => /note|refused by hook/.test(line));
  assert.deepEqual(notes, ['note: git could not make the first commit; to make it: cd hooked && git add --all && git commit -m "Initial commit"']);
  assert.match(run.stdout, /Created .*hooked\. Next:/);
  assert.equal(spawnSync("git", ["rev-parse", "--verify", "HEAD"], { cwd: join(temp.dir, "hooked") }).status, 128, "no commit");
});

test("with --git and the install, the first commit holds the lockfile: a clone of it installs with npm ci, and its npm test passes", { timeout: 600_000 }, () => {
  const identity = gitUser("[user]\n\tname = Ada\n\temail = ada@example.com\n");
  const run = runCreate(["locked", "--yes", "--git", "--transport", "stdio"], temp.dir, identity);
  assert.equal(run.status, 0, explain(run));
  const app = join(temp.dir, "locked");
  assert.equal(git(app, ["log", "--format=%s"]).trim(), "Initial commit from create-mcp-handler");
  assert.ok(git(app, ["ls-tree", "--name-only", "HEAD"]).split("\n").includes("package-lock.json"), "the first commit holds package-lock.json");
  assert.equal(git(app, ["status", "--porcelain"]), "", "nothing the install wrote is left out of the first commit");
  const clone = join(temp.dir, "locked-clone");
  git(temp.dir, ["clone", "--quiet", app, clone]);
  const ci = runIn(clone, "npm", ["ci"], 300_000);
  assert.equal(ci.status, 0, explain(ci));
  const tested = runIn(clone, "npm", ["test"], 240_000);
  assert.equal(tested.status, 0, explain(tested));
});

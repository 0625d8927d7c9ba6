// The floor of `create-mcp-handler`: start Node, read every file of a scaffold made before
// and write each into a new folder, then (with --git) make the same first commit create
// makes: git init, one packed add, commit. What a scaffolder cannot do without on this
// machine; bench/create.mjs runs it beside create on the same files.
// Usage: node bench/create-floor.mjs <scaffold> <new folder> [--git]
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const [source, target] = process.argv.slice(2);
const files = readdirSync(source, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && !join(entry.parentPath, entry.name).includes(`${source}/.git/`))
  .map((entry) => relative(source, join(entry.parentPath, entry.name)));
const made = new Set();
for (const path of files) {
  const folder = dirname(join(target, path));
  if (!made.has(folder)) mkdirSync(folder, { recursive: true });
  made.add(folder);
  writeFileSync(join(target, path), readFileSync(join(source, path)), { flag: "wx" });
}
if (process.argv.includes("--git")) {
  const git = (...args) => {
    const run = spawnSync("git", args, { cwd: target, stdio: "ignore" });
    if (run.status !== 0) throw new Error(`git ${args.join(" ")} failed in ${target}`);
  };
  git("init", "--quiet");
  git("-c", "core.bigFileThreshold=1", "add", "--all");
  git("-c", "user.name=floor", "-c", "user.email=floor@example.invalid", "commit", "--quiet", "-m", "floor");
}

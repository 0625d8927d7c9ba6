import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, test } from "node:test";
import { versionFolder } from "../../../cli/generate/verify.js";
import { PROTOCOL_VERSION } from "../../../generated/index.js";
import { readProjectConfig } from "../../../cli/toolbox/project-config.js";
import { repoRoot, schemaPath } from "../../support/schemas.js";
import { explain, npmEnv, runCreate, runMcpGen, schemasDir, tempFolder, type Run } from "../../cli/scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("create-mcp-handler")));
afterEach(() => temp.remove());

const SLOW = { timeout: 60_000 };
const tsxLoader = import.meta.resolve("tsx");
const quick = ["--no-install", "--no-git"];

test("without a terminal and without --yes it never prompts: it names every missing option", SLOW, () => {
  const run = runCreate(["app"], temp.dir);
  assert.equal(run.status, 2, explain(run));
  assert.match(run.stderr, /^error: no terminal to ask on, and missing --handler, --transport, --pm, --install\/--no-install, --git\/--no-git/);
  assert.deepEqual(readdirSync(temp.dir), []);
});

test("without a terminal, every prompt answered by a flag is enough", SLOW, () => {
  const args = ["app", "--transport", "stdio", "--handler", "Watch", "--pm", "pnpm", ...quick];
  const run = runCreate(args, temp.dir);
  assert.equal(run.status, 0, explain(run));
  assert.ok(existsSync(join(temp.dir, "app", "src", "handlers", "watch.ts")));
  assert.ok(!existsSync(join(temp.dir, "app", "src", "serve", "http.ts")), "stdio only: no HTTP entry");
  assert.match(run.stdout, /\n {2}cd app\n {2}pnpm install\n {2}pnpm test\n {2}pnpm start\n/);
});

test("--yes takes the defaults and ends with the exact next commands", SLOW, () => {
  const run = runCreate(["app", "--yes", ...quick], temp.dir);
  assert.equal(run.status, 0, explain(run));
  assert.match(run.stdout, /Next:\n\n {2}cd app\n {2}npm install\n {2}npm test\n {2}npm start\n/);
  const manifest = JSON.parse(readFileSync(join(temp.dir, "app", "package.json"), "utf8"));
  assert.equal(manifest.name, "app");
  // Run from source here (tsx): an unbuilt checkout is linked; a built one is packed into vendor/ (create-pack.test.ts).
  if (existsSync(join(repoRoot, "dist", "cli", "main.js"))) {
    assert.match(manifest.devDependencies["mcp-gen"], /^file:vendor\/mcp-gen-.*\.tgz$/, "from a built checkout: a tarball kept in the project");
  } else assert.equal(manifest.devDependencies["mcp-gen"], `file:${repoRoot.replace(/\/$/, "")}`, "from an unbuilt checkout: a file: link");
  assert.equal(manifest.scripts.start, "tsc -p tsconfig.json && mcp-gen prebundle && node dist/src/main.js --http", "start builds first");
  assert.equal(manifest.scripts["start:stdio"], "tsc -p tsconfig.json && mcp-gen prebundle && node dist/src/main.js --stdio");
  assert.equal(manifest.scripts.build, "tsc -p tsconfig.json && mcp-gen prebundle", "the build bundles the server it compiled");
  assert.equal(manifest.scripts.prepare, undefined, "no install script: start and test build");
  assert.ok(existsSync(join(temp.dir, "app", ".gitignore")));
  assert.ok(existsSync(join(temp.dir, "app", "generated", versionFolder(PROTOCOL_VERSION), "types.ts")));
  assert.ok(!existsSync(join(temp.dir, "app", "generated", versionFolder(PROTOCOL_VERSION), "runtime")), "the runtime is a dependency, not generated");
  assert.match(manifest.dependencies["@mcp-gen/runtime"], /^file:vendor\/mcp-gen-runtime-.*\.tgz$/);
  assert.ok(!existsSync(join(temp.dir, "app", ".git")), "--no-git");
});

test("an HTTP server's dev script is mcp-gen dev --http, with no drain on its restarts and sessions kept in a file", SLOW, () => {
  for (const [transport, command] of [
    ["both", "mcp-gen dev --http -- --http"],
    ["http", "mcp-gen dev --http"],
  ] as const) {
    const run = runCreate([`dev-${transport}`, "--yes", ...quick, "--transport", transport], temp.dir);
    assert.equal(run.status, 0, explain(run));
    const dev: string = JSON.parse(readFileSync(join(temp.dir, `dev-${transport}`, "package.json"), "utf8")).scripts.dev;
    // An HTTP server drains SHUTDOWN_DELAY_MS (5 s) for a balancer on SIGTERM, which each restart sends;
    // 2025-11-25 sessions are kept in a file (src/serve/dev-sessions.ts), so a client's session outlives each restart.
    assert.equal(dev, `SHUTDOWN_DELAY_MS=0 MCP_DEV_SESSIONS=.dev/sessions.json ${command}`, transport);
  }
});

test("a stdio server's dev script is mcp-gen dev, which keeps the client that spawned it across restarts", SLOW, () => {
  for (const [transport, script, command] of [
    ["stdio", "dev", "mcp-gen dev"],
    ["both", "dev:stdio", "mcp-gen dev -- --stdio"],
  ] as const) {
    const run = runCreate([`dev-${transport}`, "--yes", ...quick, "--transport", transport], temp.dir);
    assert.equal(run.status, 0, explain(run));
    const scripts: Record<string, string> = JSON.parse(readFileSync(join(temp.dir, `dev-${transport}`, "package.json"), "utf8")).scripts;
    assert.equal(scripts[script], command, transport);
  }
});

test("a non-empty folder is refused without --overwrite and left untouched", SLOW, () => {
  const app = join(temp.dir, "app");
  mkdirSync(app);
  writeFileSync(join(app, "notes.md"), "mine");
  const run = runCreate(["app", "--yes", ...quick], temp.dir);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /^error: the folder .*app is not empty \(.*--overwrite/);
  assert.deepEqual(readdirSync(app), ["notes.md"]);
  const again = runCreate(["app", "--yes", "--overwrite", ...quick], temp.dir);
  assert.equal(again.status, 0, explain(again));
  assert.equal(readFileSync(join(app, "notes.md"), "utf8"), "mine");
  assert.ok(existsSync(join(app, "src", "server.ts")));
});

test("a bad handler name is refused before anything is written", SLOW, () => {
  for (const name of ["../x", "1abc", "Class", "Promise", "lower", "App", "Subscription"]) {
    const run = runCreate(["app", "--yes", "--handler", name, ...quick], temp.dir);
    assert.equal(run.status, 2, explain(run));
    assert.match(run.stderr, /^error: invalid handler name/);
  }
  assert.deepEqual(readdirSync(temp.dir), []);
});

test("bad flags are one-line usage errors", SLOW, () => {
  const cases: Array<[string[], RegExp]> = [
    [["app", "--yes", "--transport", "ws"], /--transport must be one of stdio, http, both, not "ws"/],
    [["app", "--yes", "--pm", "bun"], /--pm must be one of npm, pnpm, yarn/],
    [["app", "--yes", "--install", "--no-install"], /--install and --no-install contradict/],
    [["app", "other", "--yes"], /expected one folder, got 2/],
    [["app", "--yes", "--frobnicate"], /frobnicate/],
    [["My App", "--yes", ...quick], /not a valid npm package name/],
  ];
  for (const [args, message] of cases) {
    const run = runCreate(args, temp.dir);
    assert.equal(run.status, 2, explain(run));
    assert.match(run.stderr, message);
    assert.equal(run.stderr.trim().split("\n").length, 1, `one line: ${run.stderr}`);
  }
  assert.deepEqual(readdirSync(temp.dir), []);
});

test("a target that is a file is a one-line error, and the file is left alone", SLOW, () => {
  writeFileSync(join(temp.dir, "app"), "mine");
  for (const extra of [[], ["--overwrite"]]) {
    const run = runCreate(["app", "--yes", ...quick, ...extra], temp.dir);
    assert.equal(run.status, 1, explain(run));
    assert.match(run.stderr, /^error: .*app is a file, not a folder \(/);
    assert.equal(run.stderr.trim().split("\n").length, 1, `one line: ${run.stderr}`);
  }
  assert.equal(readFileSync(join(temp.dir, "app"), "utf8"), "mine");
});

/**
 * create-mcp-handler as an ordinary user: root ignores a folder's mode bits, so when the
 * tests run as root the command runs as `nobody` (the checkout must be readable to it).
 */
const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

test("a target inside a read-only folder is a one-line error, and nothing is left there", { ...SLOW, skip: ordinaryUserProblem() }, () => {
  const readOnly = join(temp.dir, "read-only");
  mkdirSync(readOnly);
  chmodSync(readOnly, 0o555);
  chmodSync(temp.dir, 0o755);
  const run = runCreateAsUser(["read-only/app", "--yes", ...quick], temp.dir);
  assert.equal(run.status, 1, explain(run));
  assert.match(
    run.stderr,
    /^error: cannot create .*read-only\/app: EACCES: permission denied.* \(check that the folder exists and that you may write in it\)\n$/,
  );
  assert.deepEqual(readdirSync(readOnly), []);
});

/** Why the command cannot run as that user here (a checkout below a private folder), or false. */
function ordinaryUserProblem(): string | false {
  const probe = spawnSync(process.execPath, ["-e", `require("fs").accessSync(${JSON.stringify(join(repoRoot, "cli", "create.ts"))}, 4)`], asNobody);
  return probe.status === 0 ? false : `the checkout at ${repoRoot} is not readable to user nobody, which this root-run test needs`;
}

function runCreateAsUser(args: string[], cwd: string): Run {
  const command = [process.execPath, "--import", import.meta.resolve("tsx"), join(repoRoot, "cli", "create.ts"), ...args];
  const run = spawnSync(command[0]!, command.slice(1), { cwd, encoding: "utf8", env: npmEnv, timeout: 120_000, ...asNobody });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

test("--overwrite writes nothing through a subfolder link that leaves the target", SLOW, () => {
  const app = join(temp.dir, "app");
  const elsewhere = join(temp.dir, "elsewhere");
  mkdirSync(app);
  mkdirSync(elsewhere);
  symlinkSync(elsewhere, join(app, "src"));
  const run = runCreate(["app", "--yes", "--overwrite", ...quick], temp.dir);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /^error: src in .*app is a symbolic link to .*elsewhere, outside the folder; nothing is written through it/);
  assert.deepEqual(readdirSync(elsewhere), [], "nothing written outside the target");
  assert.deepEqual(readdirSync(app), ["src"], "nothing written inside either");
});

test("--dry-run lists the files and writes nothing", SLOW, () => {
  const run = runCreate(["app", "--yes", "--dry-run"], temp.dir);
  assert.equal(run.status, 0, explain(run));
  assert.match(run.stdout, /^would write \d+ files to .*app:\n/);
  assert.match(run.stdout, /\n {2}src\/server\.ts\n/);
  assert.match(run.stdout, /\n {2}src\/handlers\/tool-changes\.ts\n/);
  assert.deepEqual(readdirSync(temp.dir), []);
});

test("--help prints the usage, every prompt's flag included, and writes nothing", SLOW, () => {
  const run = runCreate(["--help"], temp.dir);
  assert.equal(run.status, 0, explain(run));
  for (const flag of ["[dir]", "--transport stdio|http|both", "--handler <Name>", "--pm npm|pnpm|yarn", "--no-install", "--no-git", "--yes", "--overwrite"]) {
    assert.ok(run.stdout.includes(flag), `usage mentions ${flag}`);
  }
  assert.deepEqual(readdirSync(temp.dir), []);
});

test(
  "the project's generate script (mcp-gen types) rewrites the files generated/ was scaffolded with, every listed revision and the import point",
  SLOW,
  () => {
    const run = runCreate(["app", "--yes", ...quick], temp.dir);
    assert.equal(run.status, 0, explain(run));
    const app = join(temp.dir, "app");
    const generated = join(app, "generated");
    const before = snapshotOf(generated);
    const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
    assert.equal(manifest.scripts.generate, "mcp-gen types");
    // The extensions this package's own generated/ was made with, so `npm run generate` makes the same.
    const own = readProjectConfig(repoRoot)!;
    assert.deepEqual(manifest["mcp-gen"], { out: "generated", revisions: own.revisions, extensions: own.extensions, runtime: "@mcp-gen/runtime" });
    rmSync(generated, { recursive: true });
    // The script's own arguments, each schema from $MCP_SCHEMAS_DIR instead of its pinned URL.
    const regenerate = runMcpGen(manifest.scripts.generate.split(" ").slice(1), app, { MCP_SCHEMAS_DIR: schemasDir() });
    assert.equal(regenerate.status, 0, explain(regenerate));
    const after = snapshotOf(generated);
    assert.deepEqual([...after.keys()], [...before.keys()], "the same files, in the folders the project imports from");
    // Every file matches exactly, manifests included: none of them is a copy of the runtime.
    for (const [file, text] of before) assert.equal(after.get(file), text, file);
  },
);

function snapshotOf(dir: string): Map<string, string> {
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((path) => path.includes("."));
  return new Map(files.sort().map((path) => [path, readFileSync(join(dir, path), "utf8")]));
}

test("create loads none of the runtime but its URI template parser: the generated index would import all of it", SLOW, () => {
  // A resolve hook that refuses the two index modules through which the whole runtime loads.
  const hooks = join(temp.dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (/\\/(generated|runtime)\\/index\\.[jt]s$/.test(resolved.url)) throw new Error("create imported " + resolved.url);
  return resolved;
}
`,
  );
  const register = `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(hooks).href)});`;
  const run = spawnSync(
    process.execPath,
    ["--import", tsxLoader, "--import", `data:text/javascript,${encodeURIComponent(register)}`, join(repoRoot, "cli", "create.ts"), "app", "--yes", ...quick],
    { cwd: temp.dir, encoding: "utf8", env: npmEnv, timeout: 60_000 },
  );
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.ok(existsSync(join(temp.dir, "app", "src", "resources")), "the project was made, its template resource included");
});

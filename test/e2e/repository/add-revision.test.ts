/**
 * Adding a protocol revision to this repository is three steps: pin it in schemas/lock.json,
 * list it in package.json's "mcp-gen".revisions, run `mcp-gen types`. This file takes those
 * steps on a copy of the tracked files, with a revision derived from 2026-07-28 that has one
 * more list-changed kind, and checks that everything else follows with no hand edit: the copy
 * type-checks, the CLI's protocol facts move to the new revision, and a set of its own tests
 * that read those facts pass.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { versionFolder } from "../../../cli/generate/verify.js";
import { explain, npmEnv, schemasDir, tempFolder, type Run } from "../../cli/scaffold/helpers.js";
import { FUTURE_KIND, FUTURE_REVISION, futureSchemaText } from "../../support/future-schema.js";
import { repoRoot } from "../../support/schemas.js";

const SLOW = { timeout: 240_000 };
/** The only files the three steps change outside generated/. */
const EDITED = ["package.json", "schemas/lock.json"];

let temp: ReturnType<typeof tempFolder>;
let copy: string;
let schemas: string;
let tracked: string[];
let types: Run;

/** Runs `node <args>` in the copy, bounded, with the schemas folder that holds the derived revision. */
function node(args: string[], timeout = 120_000): Run {
  const env = { ...npmEnv, MCP_SCHEMAS_DIR: schemas, TEST_CONCURRENCY: "1" };
  const run = spawnSync(process.execPath, args, { cwd: copy, encoding: "utf8", env, timeout });
  return { status: run.status, stdout: run.stdout ?? "", stderr: `${run.stderr ?? ""}${run.error ? `\n${run.error.message}` : ""}` };
}

before(() => {
  temp = tempFolder("mcp-gen-add-revision");
  copy = join(temp.dir, "repo");
  const listed = spawnSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" });
  assert.equal(listed.status, 0, listed.stderr);
  tracked = listed.stdout.split("\0").filter((path) => path !== "");
  for (const path of tracked) {
    mkdirSync(dirname(join(copy, path)), { recursive: true });
    cpSync(join(repoRoot, path), join(copy, path));
  }
  symlinkSync(realpathSync(join(repoRoot, "node_modules")), join(copy, "node_modules"));

  // The shared schemas, and the derived one beside them.
  schemas = join(temp.dir, "schemas");
  mkdirSync(schemas);
  for (const revision of readdirSync(schemasDir())) symlinkSync(join(schemasDir(), revision), join(schemas, revision));
  const schemaText = futureSchemaText();
  mkdirSync(join(schemas, FUTURE_REVISION));
  writeFileSync(join(schemas, FUTURE_REVISION, "schema.json"), schemaText);

  // Step 1: pin it (its real sha256; no upstream commit or URL exists for it).
  const lockPath = join(copy, "schemas", "lock.json");
  const lock = JSON.parse(readFileSync(lockPath, "utf8"));
  lock.revisions[FUTURE_REVISION] = {
    url: `https://example.invalid/schema/${FUTURE_REVISION}/schema.json`,
    commit: "0".repeat(40),
    sha256: createHash("sha256").update(schemaText).digest("hex"),
  };
  writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
  // Step 2: list it.
  const manifestPath = join(copy, "package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  manifest["mcp-gen"].revisions.push(FUTURE_REVISION);
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  // Step 3: generate, from the copy's own sources.
  types = node(["--import", "tsx", "cli/main.ts", "types"]);
}, SLOW);

after(() => temp.remove());

test("mcp-gen types writes the new revision's folder and moves the import point to it, and writes nothing outside generated/", SLOW, () => {
  assert.equal(types.status, 0, explain(types));
  const folder = versionFolder(FUTURE_REVISION);
  assert.match(types.stdout, new RegExp(`^wrote .*generated/${folder} from MCP ${FUTURE_REVISION} \\(pinned`, "m"));
  const index = readFileSync(join(copy, "generated", "index.ts"), "utf8");
  assert.match(index, new RegExp(`^export \\* from "\\./${folder}/types\\.js";$`, "m"));
  // This repository keeps its runtime in packages/runtime/src ("mcp-gen.runtime"), which serves the new revision too.
  assert.match(index, /^export \* from "\.\.\/packages\/runtime\/src\/index\.js";$/m);
  for (const path of tracked.filter((path) => !path.startsWith("generated/") && !EDITED.includes(path))) {
    assert.ok(readFileSync(join(copy, path)).equals(readFileSync(join(repoRoot, path))), `${path} is unchanged`);
  }
  const present = (readdirSync(copy, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(copy.length + 1))
    .filter((path) => !path.startsWith("generated/") && !path.startsWith("node_modules/"));
  assert.deepEqual(present.sort(), tracked.filter((path) => !path.startsWith("generated/")).sort(), "no file added outside generated/");
});

test("the copy type-checks", SLOW, () => {
  const run = node([join(copy, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json", "--noEmit"]);
  assert.equal(run.status, 0, explain(run));
});

test("the CLI's facts follow: a new project's default list, the handler words, the listen client's versions", SLOW, () => {
  const script = `
    const { DEFAULT_REVISIONS } = await import("./cli/scaffold/generated.ts");
    const { PACKAGE_KINDS } = await import("./cli/scaffold/notification-kinds.ts");
    const { LEGACY_PROTOCOL_VERSION } = await import("./cli/listen/legacy.ts");
    const { PROTOCOL_VERSION, LEGACY_VERSION } = await import("./generated/index.ts");
    console.log(JSON.stringify({ DEFAULT_REVISIONS, words: PACKAGE_KINDS.map((kind) => kind.word), PROTOCOL_VERSION, LEGACY_VERSION, LEGACY_PROTOCOL_VERSION }));`;
  const run = node(["--import", "tsx", "--input-type=module", "-e", script]);
  assert.equal(run.status, 0, explain(run));
  const facts = JSON.parse(run.stdout);
  assert.equal(facts.DEFAULT_REVISIONS.at(-1), FUTURE_REVISION, "a new project lists it by default");
  assert.ok(facts.words.includes(FUTURE_KIND.word), `handler --notifications knows ${FUTURE_KIND.word}`);
  assert.equal(facts.PROTOCOL_VERSION, FUTURE_REVISION);
  assert.equal(facts.LEGACY_PROTOCOL_VERSION, facts.LEGACY_VERSION);
});

test(
  "the copy's own tests of the import point, the handler words, create's options, the listen client and the runtime's server pass on the new revision",
  SLOW,
  () => {
    // The runtime source binds generated/facts.ts, so its own tests (and the servers the listen tests start) move to the new revision too.
    const files = [
      "test/cli/scaffold/import-point",
      "test/cli/scaffold/notification-kinds",
      "test/cli/scaffold/create-options",
      "test/cli/listen",
      "test/e2e/cli/listen",
      "test/runtime/server.test",
    ];
    const run = node(["test/run.mjs", ...files], 180_000);
    // The failing tests' lines and errors, not the whole (long) report.
    const failures = run.stdout.split("\n").filter((line) => /not ok|error:|Expected|^\s+[+-] /.test(line));
    assert.equal(run.status, 0, `${failures.join("\n")}\n${run.stderr}`);
    assert.match(run.stdout, /^# fail 0$/m);
  },
);

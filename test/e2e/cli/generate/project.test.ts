import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { readEras, renderImportPoint } from "../../../../cli/generate/import-point.js";
import { pinnedOutputStale, shippedLegacyFolders } from "../../../../cli/generate/index.js";
import { keptRuntimeEntries, schemaSource } from "../../../../cli/generate/project.js";
import { readLock } from "../../../../cli/generate/verify.js";
import { listFiles } from "../../../../cli/toolbox/files.js";
import { parseProjectConfig, readProjectConfig } from "../../../../cli/toolbox/project-config.js";
import { FUTURE_REVISION, futureSchemaText } from "../../../support/future-schema.js";
import { repoRoot } from "../../../support/schemas.js";
import { schemaPath } from "../../../support/schemas.js";
import { schemasDir } from "../../../cli/scaffold/helpers.js";
import { explain, runMcpGen, serveOnLoopback, tempFolder } from "../../../cli/generate/helpers.js";

const SLOW = { timeout: 180_000 };
// Every child reads the pinned schemas from disk, never from the network.
process.env.MCP_SCHEMAS_DIR = schemasDir();

/** A project with `config`; one that keeps its runtime in a folder, as this repository does, gets a copy of this repository's. */
function project(dir: string, config: unknown): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "p", private: true, "mcp-gen": config }, null, 2)}\n`);
  const runtime = (config as { runtime?: string } | undefined)?.runtime;
  if (runtime?.startsWith("./")) cpSync(join(repoRoot, runtime), join(dir, runtime), { recursive: true });
  return dir;
}

function sameBytes(actual: string, expected: string, path: string): void {
  assert.ok(readFileSync(join(actual, path)).equals(readFileSync(join(expected, path))), `${path} differs`);
}

/** The initialize-era folders this repository's runtime binds, newest first. */
const LEGACY_FOLDERS = shippedLegacyFolders();

/** The revisions this repository's own package.json lists, which the project below starts from. */
function repoRevisions(): string[] {
  return readProjectConfig(repoRoot)?.revisions ?? [];
}

describe("a project with a revision list", () => {
  let temp: ReturnType<typeof tempFolder>;
  let app: string;
  before(() => {
    temp = tempFolder("mcp-gen-project-types");
    // The config this repository's own package.json holds, so the output is the committed one.
    app = project(join(temp.dir, "app"), readProjectConfig(repoRoot));
  });
  after(() => temp.remove());

  test("mcp-gen types with no --schema regenerates every listed revision and the import point, the same bytes as this repository's", SLOW, async () => {
    const run = await runMcpGen(["types"], app);
    assert.equal(run.status, 0, explain(run));
    assert.match(run.stdout, /^wrote .*generated\/v2511 from MCP 2025-11-25 \(pinned/m);
    assert.match(run.stdout, /^wrote .*generated\/v2607 from MCP 2026-07-28 \(pinned/m);
    assert.match(run.stdout, /^wrote the import point .*generated\/index\.ts$/m);
    const ours = join(app, "generated");
    const committed = join(repoRoot, "generated");
    assert.deepEqual(listFiles(ours), listFiles(committed));
    for (const path of listFiles(committed)) sameBytes(ours, committed, path);
  });

  test("--check checks every listed revision and the import point, and names each stale file in one line", SLOW, async () => {
    const fresh = await runMcpGen(["types", "--check"], app);
    assert.equal(fresh.status, 0, explain(fresh));
    assert.match(fresh.stdout, /generated\/v2511 is up to date[\s\S]*generated\/v2607 is up to date[\s\S]*generated\/index\.ts is up to date/);
    const types = join(app, "generated", "v2511", "types.ts");
    const index = join(app, "generated", "index.ts");
    const before = { types: readFileSync(types, "utf8"), index: readFileSync(index, "utf8") };
    writeFileSync(types, `${before.types}// edited\n`);
    writeFileSync(index, `${before.index}// edited\n`);
    const stale = await runMcpGen(["types", "--check"], app);
    assert.equal(stale.status, 1, explain(stale));
    assert.equal(stale.stderr.trimEnd().split("\n").length, 1, explain(stale));
    assert.match(stale.stderr, /^error: stale: .*generated\/v2511: types\.ts; .*generated\/index\.ts \(regenerate with `mcp-gen types`/);
    writeFileSync(types, before.types);
    writeFileSync(index, before.index);
  });

  test("--schema adds a revision: the change report against the newest listed one, the list, and the import point", SLOW, async () => {
    mkdirSync(join(app, "schemas"), { recursive: true });
    writeFileSync(join(app, "schemas", "next.json"), futureSchemaText());
    const run = await runMcpGen(["types", "--schema", "schemas/next.json", "--protocol-version", FUTURE_REVISION], app);
    assert.equal(run.status, 0, explain(run));
    assert.match(run.stdout, new RegExp(`^added ${FUTURE_REVISION} to package\\.json "mcp-gen\\.revisions"$`, "m"));
    assert.match(run.stdout, /^changes against 2026-07-28:\n {2}\+ type WidgetListChangedNotification\n/m);
    assert.deepEqual(readProjectConfig(app), {
      out: "generated",
      revisions: [...repoRevisions(), FUTURE_REVISION],
      // The added revision keeps the extension the newest one before it was made with.
      extensions: { "2026-07-28": ["io.modelcontextprotocol/tasks"], [FUTURE_REVISION]: ["io.modelcontextprotocol/tasks"] },
      schemas: { [FUTURE_REVISION]: "schemas/next.json" },
      runtime: "./packages/runtime/src",
    });
    // The runtime the project keeps in a folder serves the new revision too: no copy beside it.
    const index = readFileSync(join(app, "generated", "index.ts"), "utf8");
    assert.match(index, /^export \* from "\.\/v2701\/types\.js";$/m);
    assert.match(index, /^export \* from "\.\.\/packages\/runtime\/src\/index\.js";$/m);
    assert.equal(existsSync(join(app, "generated", "v2701", "runtime")), false);
  });

  test("--schema for a listed revision replaces it and reports what changed against its previous output", SLOW, async () => {
    writeFileSync(join(app, "schemas", "next.json"), futureSchemaText("Gadget"));
    const run = await runMcpGen(["types", "--schema", "schemas/next.json", "--protocol-version", FUTURE_REVISION], app);
    assert.equal(run.status, 0, explain(run));
    assert.match(run.stdout, new RegExp(`^replaced ${FUTURE_REVISION} in package\\.json "mcp-gen\\.revisions"$`, "m"));
    assert.match(run.stdout, /^changes against the previous output:\n {2}\+ type Gadget\n/m);
    assert.deepEqual(readProjectConfig(app)?.revisions, [...repoRevisions(), FUTURE_REVISION]);
  });

  test("afterwards mcp-gen types regenerates all three, the added one from the location the config records", SLOW, async () => {
    const run = await runMcpGen(["types", "--check"], app);
    assert.equal(run.status, 0, explain(run));
    assert.match(run.stdout, new RegExp(`generated/v2701 is up to date with MCP ${FUTURE_REVISION} \\(unpinned`));
  });
});

test("a listed revision whose schema nothing locates is one line saying how to add it, nothing written", SLOW, async () => {
  const temp = tempFolder("mcp-gen-project-unlocated");
  try {
    const app = project(temp.dir, { revisions: ["2025-11-25", "2031-01-01"] });
    const run = await runMcpGen(["types"], app);
    // $MCP_SCHEMAS_DIR has no 2031-01-01: the one line names the file it looked for.
    assert.equal(run.status, 1, explain(run));
    assert.match(run.stderr, /^error: schema file not found for 2031-01-01: .*2031-01-01\/schema\.json/);
    assert.equal(run.stderr.trimEnd().split("\n").length, 1, explain(run));
    assert.equal(existsSync(join(app, "generated")), false, "2025-11-25 was not generated either");
    // Without $MCP_SCHEMAS_DIR an unpinned revision with no recorded location says how to add it.
    const config = parseProjectConfig({ revisions: ["2031-01-01"] });
    assert.throws(
      () => schemaSource("2031-01-01", config, app, readLock(), {}),
      (error: Error & { hint?: string }) =>
        /^revision 2031-01-01 has no schema/.test(error.message) &&
        error.hint === "add it with `mcp-gen types --schema <file or URL> --protocol-version 2031-01-01`",
    );
  } finally {
    temp.remove();
  }
});

test("a revision with a runtime in a list with no initialize-era revision is refused before anything is written", SLOW, async () => {
  const temp = tempFolder("mcp-gen-project-no-legacy");
  try {
    const app = project(temp.dir, { revisions: ["2026-07-28"] });
    const run = await runMcpGen(["types"], app);
    assert.equal(run.status, 1, explain(run));
    assert.match(run.stderr, /^error: 2026-07-28 has a runtime, which serves initialize clients from an initialize-era revision, and the project lists none/);
    assert.equal(existsSync(join(app, "generated")), false);
  } finally {
    temp.remove();
  }
});

test("a schema is read from the config's location, else $MCP_SCHEMAS_DIR, else the lock's pinned URL", () => {
  const lock = readLock();
  const config = parseProjectConfig({ revisions: ["2026-07-28", FUTURE_REVISION], schemas: { [FUTURE_REVISION]: "schemas/next.json" } });
  assert.equal(schemaSource(FUTURE_REVISION, config, "/p", lock, { MCP_SCHEMAS_DIR: "/s" }), "/p/schemas/next.json");
  assert.equal(schemaSource("2026-07-28", config, "/p", lock, { MCP_SCHEMAS_DIR: "/s" }), "/s/2026-07-28/schema.json");
  assert.equal(schemaSource("2026-07-28", config, "/p", lock, {}), lock.revisions["2026-07-28"]!.url);
});

test("the committed generated/index.ts and facts modules are the import point this repository's list gives", () => {
  const config = readProjectConfig(repoRoot)!;
  const out = join(repoRoot, config.out);
  const files = renderImportPoint(readEras(config.revisions, out), keptRuntimeEntries(config, repoRoot))!;
  assert.deepEqual([...files.keys()].sort(), ["facts.ts", "index.ts", "legacy-facts.ts"]);
  for (const [path, text] of files) assert.equal(readFileSync(join(out, path), "utf8"), text, path);
});

test("--check of pinned revisions reads no schema: the lock's sha256 stands for the pinned bytes, and the manifest names edited files", SLOW, async () => {
  const temp = tempFolder("mcp-gen-project-offline");
  try {
    const app = project(temp.dir, readProjectConfig(repoRoot));
    cpSync(join(repoRoot, "generated"), join(app, "generated"), { recursive: true });
    const tasks = ["io.modelcontextprotocol/tasks"];
    const out = join(app, "generated");
    const kept = (extensions?: string[]) => pinnedOutputStale(out, "2026-07-28", [], extensions, undefined, "kept");
    assert.deepEqual(await kept(tasks), []);
    assert.equal(await pinnedOutputStale(out, "2026-07-28", LEGACY_FOLDERS, tasks), undefined, "a project without a kept runtime: only a regeneration tells");
    assert.equal(await kept(), undefined, "without the extension it was made with");
    // Without $MCP_SCHEMAS_DIR the sources are the pinned URLs, which this run cannot reach.
    const { MCP_SCHEMAS_DIR: _unset, ...env } = process.env;
    const check = () =>
      spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), join(repoRoot, "cli", "main.ts"), "types", "--check"], { cwd: app, env, encoding: "utf8", timeout: 60_000 });
    const fresh = check();
    assert.equal(fresh.status, 0, `${fresh.stdout}\n${fresh.stderr}`);
    writeFileSync(join(out, "v2607", "methods.ts"), "// edited\n");
    writeFileSync(join(out, "v2607", "notes.md"), "mine\n");
    rmSync(join(out, "v2607", "capabilities.ts"));
    assert.deepEqual(await kept(tasks), ["capabilities.ts", "methods.ts", "notes.md"]);
    const edited = check();
    assert.equal(edited.status, 1, "an edited tree is stale, told with no schema and no network");
    assert.match(edited.stderr, /stale: .*generated\/v2607: capabilities\.ts, methods\.ts, notes\.md/);
    assert.doesNotMatch(edited.stderr, /fetch|download|ENOTFOUND|ECONNREFUSED/i);
  } finally {
    temp.remove();
  }
});

test("a project generated by the previous release is up to date for --check, and a regeneration rewrites only its manifest's form", SLOW, async () => {
  const temp = tempFolder("mcp-gen-project-earlier");
  try {
    const app = project(temp.dir, readProjectConfig(repoRoot));
    cpSync(join(repoRoot, "generated"), join(app, "generated"), { recursive: true });
    // The previous release recorded a kept runtime as runtimeKept (and --types-only as typesOnly).
    const manifestPath = join(app, "generated", "v2607", "mcp-gen.manifest.json");
    const current = readFileSync(manifestPath, "utf8");
    assert.match(current, /"runtime": "kept"/);
    writeFileSync(manifestPath, current.replace('"runtime": "kept"', '"runtimeKept": true'));
    const { MCP_SCHEMAS_DIR: _unset, ...env } = process.env;
    const types = (...args: string[]) =>
      spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), join(repoRoot, "cli", "main.ts"), "types", ...args], { cwd: app, env, encoding: "utf8", timeout: 60_000 });
    const check = types("--check");
    assert.equal(check.status, 0, `${check.stdout}\n${check.stderr}`);
    assert.match(check.stdout, /generated\/v2607 is up to date/);
    const regenerated = types();
    assert.equal(regenerated.status, 0, `${regenerated.stdout}\n${regenerated.stderr}`);
    assert.match(regenerated.stdout, /^note: mcp-gen\.manifest\.json rewritten in this release's form/m);
    for (const path of listFiles(join(repoRoot, "generated"))) sameBytes(join(app, "generated"), join(repoRoot, "generated"), path);
    assert.equal(types("--check").status, 0);
  } finally {
    temp.remove();
  }
});

test("in a project --schema <url> without --protocol-version downloads the schema once: identified, then generated from the same bytes", SLOW, async () => {
  const temp = tempFolder("mcp-gen-project-url-once");
  const server = await serveOnLoopback(readFileSync(schemaPath("2026-07-28"), "utf8"));
  try {
    const app = project(temp.dir, readProjectConfig(repoRoot));
    cpSync(join(repoRoot, "generated"), join(app, "generated"), { recursive: true });
    // --check of fresh output: the schema is read, identified as the pinned 2026-07-28 and found up to date.
    const run = await runMcpGen(["types", "--check", "--schema", server.url], app);
    assert.equal(run.status, 0, explain(run));
    assert.match(run.stdout, /generated\/v2607 is up to date with MCP 2026-07-28 \(pinned/);
    assert.equal(server.requests(), 1);
  } finally {
    await server.close();
    temp.remove();
  }
});

test("in a project --protocol-version without --schema is one line, nothing written", SLOW, async () => {
  const temp = tempFolder("mcp-gen-project-version-only");
  try {
    const app = project(temp.dir, { revisions: ["2025-11-25", "2026-07-28"] });
    const run = await runMcpGen(["types", "--protocol-version", "2026-07-28"], app);
    assert.equal(run.status, 1, explain(run));
    assert.equal(
      run.stderr,
      "error: --protocol-version names the revision of a --schema file (pass --schema too, or drop it to regenerate every listed revision)\n",
    );
    assert.equal(existsSync(join(app, "generated")), false);
  } finally {
    temp.remove();
  }
});

test("an index.ts in the generated folder that mcp-gen did not write is refused in one line before anything is generated", SLOW, async () => {
  const temp = tempFolder("mcp-gen-project-foreign-index");
  try {
    const app = project(temp.dir, { revisions: ["2025-11-25", "2026-07-28"] });
    mkdirSync(join(app, "generated"));
    writeFileSync(join(app, "generated", "index.ts"), "export const mine = 1;\n");
    const run = await runMcpGen(["types"], app);
    assert.equal(run.status, 1, explain(run));
    assert.match(run.stderr, /^error: .*generated\/index\.ts was not written by mcp-gen; refusing to replace it \(move it away/);
    assert.equal(run.stderr.trimEnd().split("\n").length, 1, explain(run));
    assert.equal(readFileSync(join(app, "generated", "index.ts"), "utf8"), "export const mine = 1;\n");
    assert.deepEqual(listFiles(join(app, "generated")), ["index.ts"], "no revision folder was written");
  } finally {
    temp.remove();
  }
});

test("--schema with --extension lists the extension for that revision; a --check of that schema then applies it", SLOW, async () => {
  const temp = tempFolder("mcp-gen-project-extension");
  try {
    const app = project(temp.dir, { revisions: ["2025-11-25"] });
    const schema = schemaPath("2026-07-28");
    const legacy = await runMcpGen(["types"], app);
    assert.equal(legacy.status, 0, explain(legacy));
    const added = await runMcpGen(["types", "--schema", schema, "--extension", "io.modelcontextprotocol/tasks"], app);
    assert.equal(added.status, 0, explain(added));
    assert.deepEqual(readProjectConfig(app)?.extensions, { "2026-07-28": ["io.modelcontextprotocol/tasks"] });
    assert.match(readFileSync(join(app, "generated", "v2607", "methods.ts"), "utf8"), /"tasks\/get"/);
    // No --extension and no --protocol-version: the schema is identified, and the config's extensions apply.
    const checked = await runMcpGen(["types", "--check", "--schema", schema], app);
    assert.equal(checked.status, 0, explain(checked));
    assert.match(checked.stdout, /generated\/v2607 is up to date/);
  } finally {
    temp.remove();
  }
});

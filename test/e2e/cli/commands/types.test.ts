import assert from "node:assert/strict";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { freePort } from "../../../support/ports.js";
import { repoRoot, schemaPath } from "../../../support/schemas.js";
import { editedSchema, explain, put, runMcpGen, serveOnLoopback, tempFolder } from "../../../cli/generate/helpers.js";

const SLOW = { timeout: 120_000 };
let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("mcp-gen-types-cli")));
afterEach(() => temp.remove());

/** A bad input: exit non-zero, exactly one line on stderr matching `message`, nothing written. */
async function assertRefused(args: string[], message: RegExp): Promise<void> {
  const out = join(temp.dir, "out");
  const run = await runMcpGen(["types", ...args, "--out", out]);
  assert.notEqual(run.status, 0, explain(run));
  assert.equal(run.stderr.trimEnd().split("\n").length, 1, `one line: ${explain(run)}`);
  assert.match(run.stderr, /^error: /);
  assert.match(run.stderr, message);
  assert.equal(existsSync(out), false, "nothing written");
}

describe("bad input is a one-line error naming the problem and the fix, non-zero exit, nothing written", () => {
  test("a missing file", SLOW, () => assertRefused(["--schema", join(temp.dir, "nope.json")], /schema file not found: .*nope\.json \(pass --schema/));

  test("an unreachable URL (a closed port on 127.0.0.1)", SLOW, async () => {
    const url = `http://127.0.0.1:${await freePort()}/schema.json`;
    await assertRefused(["--schema", url], /cannot reach http:\/\/127\.0\.0\.1:\d+\/schema\.json \(ECONNREFUSED\) \(check the network/);
  });

  test("invalid JSON", SLOW, () =>
    assertRefused(
      ["--schema", put(join(temp.dir, "2026-07-28", "schema.json"), "{ not json")],
      /schema\.json is not valid JSON \(at character 2\) \(pass the MCP protocol schema\.json/,
    ),
  );

  test("JSON that is not a JSON Schema", SLOW, () =>
    assertRefused(
      ["--schema", put(join(temp.dir, "2026-07-28", "schema.json"), '{"name": "package"}')],
      /is not a JSON Schema \(no "\$schema", "\$defs" or "definitions" at its top level\)/,
    ),
  );

  test("a $ref to a missing definition", SLOW, () => {
    const schema = editedSchema(schemaPath("2026-07-28"), temp.dir, "2026-12-01", (s) => {
      s.$defs.Tool.properties.icons = { $ref: "#/$defs/Nowhere" };
    });
    return assertRefused(
      ["--schema", schema],
      /\$ref "#\/\$defs\/Nowhere" at \$defs\.Tool\.properties\.icons points to a missing definition \(add the definition/,
    );
  });

  test("a known revision with a wrong hash", SLOW, () => {
    const schema = editedSchema(schemaPath("2026-07-28"), temp.dir, "2026-07-28", (s) => {
      s.$defs.Cursor.description = "changed";
    });
    return assertRefused(["--schema", schema], /claims pinned MCP revision 2026-07-28 but its sha256 \w+ is not the pinned ef70b61f/);
  });

  test("a schema whose hash is unknown and whose revision is named nowhere", SLOW, () => {
    const schema = editedSchema(schemaPath("2026-07-28"), temp.dir, "latest", (s) => {
      s.$defs.Cursor.description = "changed";
    });
    return assertRefused(["--schema", schema], /cannot tell which MCP revision .* is .* \(pass --protocol-version/);
  });
});

test("--protocol-version must be shaped YYYY-MM-DD or draft-YYYY-MM-DD, checked before anything is read: a newline never reaches a header", SLOW, async () => {
  const schema = editedSchema(schemaPath("2026-07-28"), temp.dir, "latest", (s) => {
    s.$defs.Cursor.description = "changed";
  });
  for (const version of ["2026-09-01\nexport const injected = 1;", "2026-9-1", "v2609"]) {
    await assertRefused(
      ["--schema", schema, "--protocol-version", version],
      /--protocol-version .* is not a revision name \(use the form 2026-07-28 or draft-2026-07-28/,
    );
  }
});

test("an unknown schema named by --protocol-version generates and is reported as unpinned", SLOW, async () => {
  const schema = editedSchema(schemaPath("2026-07-28"), temp.dir, "latest", (s) => {
    s.$defs.Cursor.description = "changed";
  });
  const run = await runMcpGen(["types", "--schema", schema, "--protocol-version", "2026-09-01", "--out", join(temp.dir, "out")]);
  assert.equal(run.status, 0, explain(run));
  assert.match(run.stdout, /wrote .*v2609 from MCP 2026-09-01 \(unpinned, sha256/);
  assert.match(readFileSync(join(temp.dir, "out", "v2609", "capabilities.ts"), "utf8"), /PROTOCOL_VERSION = "2026-09-01"/);
});

test("a schema read from an http URL on loopback is recognised by its hash", SLOW, async () => {
  const server = await serveOnLoopback(readFileSync(schemaPath("2026-07-28"), "utf8"));
  try {
    const run = await runMcpGen(["types", "--schema", server.url, "--out", join(temp.dir, "out")]);
    assert.equal(run.status, 0, explain(run));
    assert.match(run.stdout, /from MCP 2026-07-28 \(pinned, sha256 ef70b61f99b6\)/);
    assert.ok(existsSync(join(temp.dir, "out", "v2607", "types.ts")));
  } finally {
    await server.close();
  }
});

describe("--check", () => {
  test("passes on fresh output, and on drift exits 1 listing the stale files while writing nothing", SLOW, async () => {
    const out = join(temp.dir, "out");
    const schema = schemaPath("2025-11-25");
    assert.equal((await runMcpGen(["types", "--schema", schema, "--out", out])).status, 0);
    const fresh = await runMcpGen(["types", "--schema", schema, "--out", out, "--check"]);
    assert.equal(fresh.status, 0, explain(fresh));
    assert.match(fresh.stdout, /is up to date with MCP 2025-11-25/);

    const methods = join(out, "v2511", "methods.ts");
    writeFileSync(methods, `${readFileSync(methods, "utf8")}// edited by hand\n`);
    writeFileSync(join(out, "v2511", "extra.ts"), "export {};\n");
    const before = readdirSync(join(out, "v2511")).sort();
    const stale = await runMcpGen(["types", "--schema", schema, "--out", out, "--check"]);
    assert.equal(stale.status, 1, explain(stale));
    assert.match(stale.stderr, /^error: .*v2511 is stale against MCP 2025-11-25 .*: extra\.ts, methods\.ts \(regenerate/);
    assert.deepEqual(readdirSync(join(out, "v2511")).sort(), before, "nothing written");
    assert.match(readFileSync(methods, "utf8"), /edited by hand/);
  });

  test(
    "the legacy folders beside a runtime are checked against the shipped copies' manifests: an edited, an extra and a missing file are each named",
    SLOW,
    async () => {
      const out = join(temp.dir, "out");
      const schema = schemaPath("2026-07-28");
      assert.equal((await runMcpGen(["types", "--schema", schema, "--out", out])).status, 0);
      const fresh = await runMcpGen(["types", "--schema", schema, "--out", out, "--check"]);
      assert.equal(fresh.status, 0, explain(fresh));
      assert.match(fresh.stdout, /legacy folders its runtime binds \(v2511, .*\) are up to date/);

      const shapes = join(out, "v2511", "shapes.ts");
      writeFileSync(shapes, `${readFileSync(shapes, "utf8")}// edited by hand\n`);
      writeFileSync(join(out, "v2506", "extra.ts"), "export {};\n");
      rmSync(join(out, "v2411", "methods.ts"));
      const manifest = join(out, "v2503", "mcp-gen.manifest.json");
      writeFileSync(manifest, `${readFileSync(manifest, "utf8")} `);
      const stale = await runMcpGen(["types", "--schema", schema, "--out", out, "--check"]);
      assert.equal(stale.status, 1, explain(stale));
      assert.match(stale.stderr, /^error: stale: .*v2511: shapes\.ts; .*v2506: extra\.ts; .*v2503: mcp-gen\.manifest\.json; .*v2411: methods\.ts \(regenerate/);
      assert.match(readFileSync(shapes, "utf8"), /edited by hand/, "nothing written");
    },
  );

  test("a changed schema makes the output stale without a file being touched", SLOW, async () => {
    const out = join(temp.dir, "out");
    const first = editedSchema(schemaPath("2026-07-28"), temp.dir, "a", () => {});
    assert.equal((await runMcpGen(["types", "--schema", first, "--protocol-version", "2026-09-01", "--out", out])).status, 0);
    const second = editedSchema(schemaPath("2026-07-28"), temp.dir, "b", (s) => {
      delete s.$defs.SubscriptionFilter.properties.toolsListChanged;
    });
    const run = await runMcpGen(["types", "--schema", second, "--protocol-version", "2026-09-01", "--out", out, "--check"]);
    assert.equal(run.status, 1, explain(run));
    assert.match(run.stderr, /is stale against MCP 2026-09-01 .*: capabilities\.ts, .*mcp-gen\.manifest\.json, methods\.ts, .*types\.ts \(regenerate/);
  });
});

describe("--types-only", () => {
  test("writes the types and maps of a revision that has a runtime, and no runtime folder", SLOW, async () => {
    const out = join(temp.dir, "out");
    const run = await runMcpGen(["types", "--schema", schemaPath("2026-07-28"), "--out", out, "--types-only"]);
    assert.equal(run.status, 0, explain(run));
    assert.match(run.stdout, /runtime not emitted: --types-only leaves it out\n/);
    assert.deepEqual(readdirSync(join(out, "v2607")).sort(), ["capabilities.ts", "mcp-gen.manifest.json", "methods.ts", "shapes.ts", "types.ts"]);
  });

  test("is recorded in the manifest: --check needs the same flag to find the output fresh", SLOW, async () => {
    const out = join(temp.dir, "out");
    const schema = schemaPath("2026-07-28");
    assert.equal((await runMcpGen(["types", "--schema", schema, "--out", out, "--types-only"])).status, 0);
    const fresh = await runMcpGen(["types", "--schema", schema, "--out", out, "--check", "--types-only"]);
    assert.equal(fresh.status, 0, explain(fresh));
    assert.match(fresh.stdout, /v2607 is up to date with MCP 2026-07-28/);
    const stale = await runMcpGen(["types", "--schema", schema, "--out", out, "--check"]);
    assert.equal(stale.status, 1, explain(stale));
    assert.match(stale.stderr, /^error: .*v2607 is stale against MCP 2026-07-28 .*: mcp-gen\.manifest\.json, runtime\/[^,]*\.ts, .*runtime\/server\.ts, /);
    assert.deepEqual(
      readdirSync(join(out, "v2607")).sort(),
      ["capabilities.ts", "mcp-gen.manifest.json", "methods.ts", "shapes.ts", "types.ts"],
      "nothing written",
    );
  });

  test("a --check with it finds output that has the runtime stale", SLOW, async () => {
    const out = join(temp.dir, "out");
    const schema = schemaPath("2026-07-28");
    assert.equal((await runMcpGen(["types", "--schema", schema, "--out", out])).status, 0);
    const run = await runMcpGen(["types", "--schema", schema, "--out", out, "--check", "--types-only"]);
    assert.equal(run.status, 1, explain(run));
    assert.match(run.stderr, /^error: .*v2607 is stale against MCP 2026-07-28 .*: mcp-gen\.manifest\.json, runtime\/[^,]*\.ts, .*runtime\/server\.ts, /);
  });
});

test("a regeneration prints what changed against the previous output", SLOW, async () => {
  const out = join(temp.dir, "out");
  const before = editedSchema(schemaPath("2026-07-28"), temp.dir, "a", () => {});
  assert.equal((await runMcpGen(["types", "--schema", before, "--protocol-version", "2026-09-01", "--out", out])).status, 0);
  const after = editedSchema(schemaPath("2026-07-28"), temp.dir, "b", (s) => {
    delete s.$defs.SubscriptionFilter.properties.toolsListChanged;
    s.$defs.ServerCapabilities.properties.tools.properties.listChanged.type = "string";
    s.$defs.ClientRequest.anyOf = s.$defs.ClientRequest.anyOf.filter((r: { $ref: string }) => r.$ref !== "#/$defs/CompleteRequest");
  });
  const run = await runMcpGen(["types", "--schema", after, "--protocol-version", "2026-09-01", "--out", out]);
  assert.equal(run.status, 0, explain(run));
  assert.match(
    run.stdout,
    /changes against the previous output:\n {2}- method completion\/complete\n {2}- filter key toolsListChanged\n {2}- flag tools\.listChanged\n/,
  );
});

test("output folders are replaced whole: a file the generator no longer writes disappears", SLOW, async () => {
  const out = join(temp.dir, "out");
  cpSync(join(schemaPath("2025-11-25")), join(temp.dir, "schema.json"));
  assert.equal((await runMcpGen(["types", "--schema", schemaPath("2025-11-25"), "--out", out])).status, 0);
  // As an earlier generation would have left it: written and listed in the manifest.
  writeFileSync(join(out, "v2511", "leftover.ts"), "export {};\n");
  const manifestPath = join(out, "v2511", "mcp-gen.manifest.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  manifest.outputs["leftover.ts"] = "0";
  writeFileSync(manifestPath, JSON.stringify(manifest));
  assert.equal((await runMcpGen(["types", "--schema", schemaPath("2025-11-25"), "--out", out])).status, 0);
  assert.equal(existsSync(join(out, "v2511", "leftover.ts")), false);
  assert.deepEqual(readdirSync(out), ["v2511"], "no temp folder left behind");
});

test("without --schema it reads the pinned 2026-07-28 URL, or says in one line that it cannot reach it", SLOW, async () => {
  const lock = JSON.parse(readFileSync(join(repoRoot, "schemas", "lock.json"), "utf8"));
  const run = await runMcpGen(["types", "--out", join(temp.dir, "out")]);
  if (run.status === 0) {
    assert.match(run.stdout, /from MCP 2026-07-28 \(pinned, sha256 ef70b61f99b6\)/);
  } else {
    assert.equal(run.stderr.trimEnd().split("\n").length, 1, explain(run));
    assert.ok(run.stderr.startsWith(`error: cannot reach ${lock.revisions["2026-07-28"].url} (`), explain(run));
    assert.equal(existsSync(join(temp.dir, "out")), false);
  }
});

test("an --out that is a file is a one-line error, not a crash", SLOW, async () => {
  const file = put(join(temp.dir, "file"), "not a folder\n");
  const run = await runMcpGen(["types", "--schema", schemaPath("2025-11-25"), "--out", file]);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /^error: cannot write .*file\/v2511: .* \(check that --out names a writable folder\)\n$/);
  assert.equal(readFileSync(file, "utf8"), "not a folder\n");
});

test("--out never replaces a folder it did not write: a user's v<yymm> folder is refused in one line, untouched", SLOW, async () => {
  const out = join(temp.dir, "out");
  const notes = put(join(out, "v2511", "notes.md"), "mine\n");
  cpSync(schemaPath("2025-11-25"), join(out, "v2511", "schema.json"));
  const run = await runMcpGen(["types", "--schema", join(out, "v2511", "schema.json"), "--out", out]);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /^error: .*v2511 holds files mcp-gen did not write \(no mcp-gen\.manifest\.json\); refusing to replace it \(pass another --out/);
  assert.equal(run.stderr.trimEnd().split("\n").length, 1);
  assert.deepEqual(readdirSync(join(out, "v2511")).sort(), ["notes.md", "schema.json"]);
  assert.equal(readFileSync(notes, "utf8"), "mine\n");
});

test("regenerating never deletes a file the manifest does not list: the run refuses naming them, nothing written", SLOW, async () => {
  const out = join(temp.dir, "out");
  assert.equal((await runMcpGen(["types", "--schema", schemaPath("2025-11-25"), "--out", out])).status, 0);
  const folder = join(out, "v2511");
  put(join(folder, "NOTES.md"), "mine\n");
  cpSync(schemaPath("2025-11-25"), join(folder, "schema.json"));
  const before = readdirSync(folder, { recursive: true }).sort();
  const run = await runMcpGen(["types", "--schema", join(folder, "schema.json"), "--out", out]);
  assert.equal(run.status, 1, explain(run));
  assert.match(
    run.stderr,
    /^error: .*v2511 holds files mcp-gen did not write \(NOTES\.md, schema\.json: not in its mcp-gen\.manifest\.json\); refusing to replace it \(pass another --out/,
  );
  assert.equal(run.stderr.trimEnd().split("\n").length, 1);
  assert.deepEqual(readdirSync(folder, { recursive: true }).sort(), before);

  // A manifest copied into a user's folder does not make its other files ours.
  const mine = join(temp.dir, "mine", "v2511");
  put(join(mine, "src", "mine.ts"), "export {};\n");
  cpSync(join(folder, "mcp-gen.manifest.json"), join(mine, "mcp-gen.manifest.json"));
  const copied = await runMcpGen(["types", "--schema", schemaPath("2025-11-25"), "--out", join(temp.dir, "mine")]);
  assert.equal(copied.status, 1, explain(copied));
  assert.match(copied.stderr, /\(src\/mine\.ts: not in its mcp-gen\.manifest\.json\); refusing to replace it/);
  assert.equal(readFileSync(join(mine, "src", "mine.ts"), "utf8"), "export {};\n");
});

test("--check on an output holding a symlink loop lists the link as stale instead of following it", SLOW, async () => {
  const out = join(temp.dir, "out");
  assert.equal((await runMcpGen(["types", "--schema", schemaPath("2025-11-25"), "--out", out])).status, 0);
  symlinkSync(".", join(out, "v2511", "loop"));
  const run = await runMcpGen(["types", "--schema", schemaPath("2025-11-25"), "--out", out, "--check"]);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /^error: .*v2511 is stale against MCP 2025-11-25 .*: loop \(regenerate/);
});

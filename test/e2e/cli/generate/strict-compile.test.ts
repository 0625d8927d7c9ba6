/**
 * Generated code is pasted into projects stricter than ours: every revision's output, the
 * runtime included, must compile under `strict` and under the flags of @tsconfig/strictest.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { repoRoot, schemaPath, type Revision } from "../../../support/schemas.js";
import { explain, runMcpGen, runNode, tempFolder, type Run } from "../../../cli/generate/helpers.js";
import { versionFolder } from "../../../../cli/generate/verify.js";

const SLOW = { timeout: 120_000 };
const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");

const STRICT = {
  target: "ES2022",
  module: "NodeNext",
  moduleResolution: "NodeNext",
  lib: ["ES2023"],
  // The runtime uses Node's APIs; the temp folder has no node_modules of its own.
  types: ["node"],
  typeRoots: [join(repoRoot, "node_modules", "@types")],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
};
const STRICTEST = {
  ...STRICT,
  noPropertyAccessFromIndexSignature: true,
  exactOptionalPropertyTypes: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noImplicitReturns: true,
  noImplicitOverride: true,
  noFallthroughCasesInSwitch: true,
  noUncheckedIndexedAccess: true,
  allowUnusedLabels: false,
  allowUnreachableCode: false,
};

let temp: ReturnType<typeof tempFolder>;
/** Every revision into one folder, so that 2026-07-28's runtime finds the initialize-era folders its legacy layer binds. */
let all: string;
/** 2026-07-28 alone, --types-only: nothing beside it to bind. */
let typesOnly: string;

async function generate(revision: Revision, out: string, ...flags: string[]): Promise<void> {
  const run = await runMcpGen(["types", "--schema", schemaPath(revision), "--out", out, ...flags]);
  assert.equal(run.status, 0, explain(run));
}

before(
  async () => {
    temp = tempFolder("mcp-gen-strict");
    all = join(temp.dir, "all");
    typesOnly = join(temp.dir, "types-only");
    // As the README's first example does: the runtime's revision alone, which writes the legacy folders it binds beside it.
    await generate("2026-07-28", all, "--extension", "io.modelcontextprotocol/tasks");
    for (const revision of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const) {
      assert.ok(existsSync(join(all, versionFolder(revision), "shapes.ts")), `${revision} was written beside the runtime`);
    }
    // And each initialize-era revision generated from its own schema (the draft-07 ones included), over those copies.
    for (const revision of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const) await generate(revision, all);
    await generate("2026-07-28", typesOnly, "--extension", "io.modelcontextprotocol/tasks", "--types-only");
  },
  { timeout: 300_000 },
);
after(() => temp.remove());

/** tsc over every .ts file under `dir`, with a tsconfig written there. */
function compile(dir: string, name: string, compilerOptions: object): Promise<Run> {
  const project = join(dir, `tsconfig.${name}.json`);
  writeFileSync(project, JSON.stringify({ compilerOptions, include: ["**/*.ts"] }, null, 2));
  return runNode([tsc, "-p", project, "--pretty", "false"], dir, 60_000);
}

/** The first line of each error tsc printed (its continuation lines are indented). */
function errorLines(run: Run): string[] {
  return run.stdout.split("\n").filter((line) => /^\S.*error TS\d+/.test(line));
}

test("every revision's output, the runtime with its legacy layer included, compiles under strict", SLOW, async () => {
  assert.ok(existsSync(join(all, "v2607", "runtime", "legacy", "protocol.ts")), "the runtime is there to compile");
  const run = await compile(all, "strict", STRICT);
  assert.equal(run.status, 0, explain(run));
});

test("every revision's output compiles under strict plus the strictest flags", SLOW, async () => {
  const run = await compile(all, "strictest", STRICTEST);
  assert.deepEqual(errorLines(run), [], explain(run));
  assert.equal(run.status, 0, explain(run));
});

test("--types-only output of 2026-07-28 compiles on its own under strict and under the strictest flags", SLOW, async () => {
  assert.equal(existsSync(join(typesOnly, "v2607", "runtime")), false, "no runtime");
  for (const [name, options] of [
    ["strict", STRICT],
    ["strictest", STRICTEST],
  ] as const) {
    const run = await compile(typesOnly, name, options);
    assert.equal(run.status, 0, `${name}: ${explain(run)}`);
  }
});

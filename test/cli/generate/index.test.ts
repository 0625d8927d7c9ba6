import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createHash } from "node:crypto";
import { generateTypes } from "../../../cli/generate/index.js";
import { extensionLocation } from "../../../cli/generate/extend.js";
import { listFiles } from "../../../cli/toolbox/files.js";
import { repoRoot, schemaPath, type Revision } from "../../support/schemas.js";
import { tempFolder } from "./helpers.js";

const SLOW = { timeout: 180_000 };
// generated/v2607 is committed with the tasks extension merged in (the runtime's tasks support is type-checked against it).
const REVISIONS: ReadonlyArray<{ revision: Revision; folder: string; extensions?: string[] }> = [
  { revision: "2026-07-28", folder: "v2607", extensions: ["io.modelcontextprotocol/tasks"] },
  { revision: "2025-11-25", folder: "v2511" },
  { revision: "draft-2026-06-07", folder: "v2606-draft" },
];
const goldenDir = join(repoRoot, "test", "cli", "generate", "golden");

let temp: ReturnType<typeof tempFolder>;
const generated = new Map<string, string>();
before(async () => {
  temp = tempFolder("mcp-gen-types");
  for (const { revision, folder, extensions } of REVISIONS) {
    // As this repository's package.json says ("mcp-gen.runtime"): it keeps the runtime's source in packages/runtime/src.
    const report = await generateTypes({ schema: schemaPath(revision), out: temp.dir, extensions, runtime: "kept" });
    assert.equal(report.outDir, join(temp.dir, folder));
    generated.set(revision, report.outDir);
  }
});
after(() => temp.remove());

const read = (revision: string, file: string) => readFileSync(join(generated.get(revision)!, file), "utf8");

for (const { revision, folder } of REVISIONS.filter((r) => !r.revision.startsWith("draft"))) {
  test(`regenerating from the pinned ${revision} schema reproduces the committed generated/${folder} byte for byte`, SLOW, () => {
    const committed = join(repoRoot, "generated", folder);
    const fresh = generated.get(revision)!;
    assert.deepEqual(listFiles(fresh), listFiles(committed), "the same set of files");
    for (const file of listFiles(committed)) {
      assert.ok(readFileSync(join(fresh, file)).equals(readFileSync(join(committed, file))), `${file} differs: run mcp-gen types and commit`);
    }
  });
}

// The pinned revisions are committed under generated/ and checked byte for byte above; only
// the draft, which nothing commits, keeps golden maps of its own.
describe("method and capability maps match their golden files", () => {
  for (const { revision } of REVISIONS.filter((r) => r.revision.startsWith("draft"))) {
    for (const file of ["methods.ts", "capabilities.ts"]) {
      test(`${revision} ${file}`, () => {
        const golden = join(goldenDir, revision, file);
        assert.equal(read(revision, file), readFileSync(golden, "utf8"), `compare with ${golden}`);
      });
    }
  }
});

test("types.ts declares exactly one type per $defs entry (the extensions' included), named as the key, and nothing else", () => {
  for (const { revision, extensions = [] } of REVISIONS) {
    const merged = [schemaPath(revision), ...extensions.map(extensionLocation)].flatMap((path) => Object.keys(JSON.parse(readFileSync(path, "utf8")).$defs));
    const defs = [...new Set(merged)].sort();
    const declared = [...read(revision, "types.ts").matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1]).sort();
    assert.deepEqual(declared, defs, revision);
  }
});

test("mangled links are repaired in the doc comments", () => {
  const types = read("2026-07-28", "types.ts");
  assert.match(types, /\{@link SubscriptionsListenRequest \| subscriptions\/listen\}/);
  assert.doesNotMatch(types, /\{@link SubscriptionsListenRequestsubscriptions/);
});

test("2025-11-25 has types and method maps, an explicit empty subscription map, and no runtime", () => {
  const capabilities = read("2025-11-25", "capabilities.ts");
  assert.match(capabilities, /export const SUBSCRIPTION_KINDS = \{\} as const;/);
  assert.match(capabilities, /export const SUBSCRIPTION_STREAM_METHODS = \[\] as const;/);
  assert.match(read("2025-11-25", "methods.ts"), /"sampling\/createMessage": \{/, "ServerRequests is filled from ServerRequest");
  assert.equal(existsSync(join(generated.get("2025-11-25")!, "runtime")), false);
});

test("runtime none (--types-only) leaves the runtime of a revision that has one out, and so needs no legacy folder to bind", SLOW, async () => {
  const dir = tempFolder("mcp-gen-types-only");
  try {
    const report = await generateTypes({ schema: schemaPath("2026-07-28"), out: dir.dir, runtime: "none", legacyFolders: [] });
    assert.equal(report.runtimeEmitted, false);
    assert.equal(report.runtime, "none");
    assert.deepEqual(listFiles(report.outDir), ["capabilities.ts", "mcp-gen.manifest.json", "methods.ts", "shapes.ts", "types.ts"]);
    assert.equal(existsSync(join(report.outDir, "runtime")), false);
    const manifest = JSON.parse(readFileSync(join(report.outDir, "mcp-gen.manifest.json"), "utf8"));
    assert.equal(manifest.inputs.runtime, "none");
    assert.equal(manifest.inputs.runtimeSourceSha256, undefined, "no runtime inputs");
  } finally {
    dir.remove();
  }
});

test("a kept runtime is written nowhere, and the manifest says so only for the revision a runtime serves", () => {
  assert.equal(existsSync(join(generated.get("2026-07-28")!, "runtime")), false);
  const manifest = (revision: string) => JSON.parse(read(revision, "mcp-gen.manifest.json"));
  assert.equal(manifest("2026-07-28").inputs.runtime, "kept");
  assert.equal(manifest("2026-07-28").summary.listenStream, true);
  assert.equal(manifest("2025-11-25").inputs.runtime, undefined, "an initialize-era output is the same whoever keeps the runtime");
  assert.equal(manifest("2025-11-25").summary.listenStream, false);
});

test("the draft's extra filter key elicitationComplete flows into the maps, ungated by any server flag", () => {
  const capabilities = read("draft-2026-06-07", "capabilities.ts");
  assert.match(
    capabilities,
    /elicitationComplete: \{\s+filterKey: "elicitationComplete",\s+handlerCapability: "elicitationComplete",\s+notificationMethod: "notifications\/elicitation\/complete",\s+notificationType: "ElicitationCompleteNotification",\s+serverCapability: null,/,
  );
  assert.match(capabilities, /"notifications\/elicitation\/complete",/, "it travels on the stream");
});

test("every generated file starts with the header naming revision, hashes and the regenerate command, extensions included", () => {
  const sha = "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203";
  const extensionSha = createHash("sha256")
    .update(readFileSync(extensionLocation("io.modelcontextprotocol/tasks")))
    .digest("hex");
  const header =
    `// generated by mcp-gen from MCP 2026-07-28 (sha256 ${sha}) with io.modelcontextprotocol/tasks (sha256 ${extensionSha}); ` +
    "do not edit; regenerate with: npx mcp-gen types --extension io.modelcontextprotocol/tasks\n";
  for (const file of listFiles(generated.get("2026-07-28")!).filter((f) => f.endsWith(".ts"))) {
    assert.ok(read("2026-07-28", file).startsWith(header), file);
  }
});

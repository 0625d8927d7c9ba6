import assert from "node:assert/strict";
import { test } from "node:test";
import { versionFolder } from "../../../cli/generate/verify.js";
import { validateName } from "../../../cli/scaffold/names.js";
import { planProject, type TransportChoice } from "../../../cli/scaffold/project.js";
import { readProjectConfig } from "../../../cli/toolbox/project-config.js";
import { repoRoot } from "../../support/schemas.js";
import { schemasDir } from "./helpers.js";

// A list other than this package's own makes the scaffold generate its runtime revision anew
// (it binds other legacy folders), from the schemas the tests use.
process.env.MCP_SCHEMAS_DIR ??= schemasDir();

// The protocol reaches the application through one module, src/mcp.ts, which re-exports the
// import point generated/index.ts; no file under src/ or test/ names a revision folder, so
// adding a revision to the list moves the project with no hand edit.
test("a new project names no revision folder under src/ and test/: src/mcp.ts re-exports generated/index.ts", async () => {
  for (const transport of ["stdio", "http", "both"] as TransportChoice[]) {
    for (const eventSource of ["memory", "redis"] as const) {
      const files = await planProject({ dir: "/nowhere/app", transport, handler: validateName("ToolChanges", "handler"), pm: "npm", eventSource });
      const naming = files.filter((file) => /^(src|test)\//.test(file.path) && /(?<!\w)v\d{4}\b/.test(file.content)).map((file) => file.path);
      assert.deepEqual(naming, [], `transport ${transport}, event source ${eventSource}`);
      assert.match(files.find((file) => file.path === "src/mcp.ts")!.content, /^export \* from "\.\.\/generated\/index\.js";$/m);
      assert.ok(!files.some((file) => file.path.includes("/runtime/")), "no runtime is generated: the project depends on the package");
      assert.match(files.find((file) => file.path === "generated/index.ts")!.content, /^export \* from "@mcp-gen\/runtime";$/m);
      const manifest = JSON.parse(files.find((file) => file.path === "package.json")!.content);
      assert.equal(manifest["mcp-gen"].runtime, "@mcp-gen/runtime");
      assert.match(manifest.dependencies["@mcp-gen/runtime"], /^file:vendor\/mcp-gen-runtime-[\d.]+\.tgz$/);
      assert.ok(!files.some((file) => file.path.startsWith("src/generated/")));
    }
  }
});

test("by default a new project lists every revision this package generates, with the extensions it was made with", async () => {
  const files = await planProject({ dir: "/nowhere/app", transport: "both", handler: validateName("ToolChanges", "handler"), pm: "npm" });
  const config = JSON.parse(files.find((file) => file.path === "package.json")!.content)["mcp-gen"];
  const own = readProjectConfig(repoRoot)!;
  assert.ok(own.revisions.length > 2, "this package lists more than two revisions");
  assert.deepEqual(config, { out: "generated", revisions: own.revisions, extensions: own.extensions, runtime: "@mcp-gen/runtime" });
  const planned = new Set(files.map((file) => file.path));
  for (const revision of own.revisions) assert.ok(planned.has(`generated/${versionFolder(revision)}/types.ts`), revision);
});

test("the README names each generated folder with its revision; none holds a runtime", async () => {
  const revisions = ["2025-06-18", "2025-11-25", "2026-07-28"];
  const files = await planProject({ dir: "/nowhere/app", transport: "both", handler: validateName("ToolChanges", "handler"), pm: "npm", revisions });
  const readme = files.find((file) => file.path === "README.md")!.content;
  const listed = readme.split("\n").filter((line) => line.startsWith("  - `generated/"));
  assert.deepEqual(listed, [
    "  - `generated/v2506/`: 2025-06-18, types and method and capability maps",
    "  - `generated/v2511/`: 2025-11-25, types and method and capability maps",
    "  - `generated/v2607/`: 2026-07-28, types and method and capability maps",
  ]);
});

test("the import point is built on the newest listed revision with a runtime and serves every listed one", async () => {
  const revisions = ["2025-11-25", "2026-07-28"];
  const files = await planProject({ dir: "/nowhere/app", transport: "both", handler: validateName("ToolChanges", "handler"), pm: "npm", revisions });
  const index = files.find((file) => file.path === "generated/index.ts")!.content;
  assert.match(index, /^export \* from "\.\/v2607\/types\.js";$/m);
  assert.match(index, /^export \* from "@mcp-gen\/runtime";$/m);
  assert.match(index, /^export const SERVED_VERSIONS: readonly string\[\] = \["2026-07-28"\];$/m);
  assert.match(index, /^export const LEGACY_VERSION: string \| undefined = "2025-11-25";$/m);
  const config = JSON.parse(files.find((file) => file.path === "package.json")!.content)["mcp-gen"];
  assert.deepEqual(config, { out: "generated", revisions, extensions: { "2026-07-28": ["io.modelcontextprotocol/tasks"] }, runtime: "@mcp-gen/runtime" });
});

test("--revisions without an initialize-era revision is refused: the runtime would have no legacy facts to bind", async () => {
  await assert.rejects(
    planProject({ dir: "/nowhere/app", transport: "both", handler: validateName("ToolChanges", "handler"), pm: "npm", revisions: ["2026-07-28"] }),
    /2026-07-28 has a runtime, which serves initialize clients from an initialize-era revision, and the project lists none/,
  );
});

test("--revisions naming a revision the lock does not pin is one line naming it", async () => {
  await assert.rejects(
    planProject({
      dir: "/nowhere/app",
      transport: "both",
      handler: validateName("ToolChanges", "handler"),
      pm: "npm",
      revisions: ["2025-11-25", "2031-01-01"],
    }),
    /^CliError: --revisions: 2031-01-01 is not a revision schemas\/lock\.json pins$/m,
  );
});

test(
  "--revisions naming a pinned revision this package does not ship generates it while planning, and the import point still takes the newest with a runtime",
  { timeout: 120_000 },
  async () => {
    const revisions = ["2025-11-25", "draft-2026-06-07", "2026-07-28"];
    const files = await planProject({ dir: "/nowhere/app", transport: "both", handler: validateName("ToolChanges", "handler"), pm: "npm", revisions });
    assert.ok(
      files.some((file) => file.path === "generated/v2606-draft/capabilities.ts"),
      "the draft was generated",
    );
    // The runtime package is not built on the draft: a copy beside it is bound to the project's facts.
    const legacy = files.find((file) => file.path === "generated/v2606-draft/runtime/legacy/protocol.ts")!;
    assert.match(legacy.content, /"\.\.\/\.\.\/\.\.\/v2511\/types\.js"/);
    const index = files.find((file) => file.path === "generated/index.ts")!.content;
    assert.match(index, /^export \* from "@mcp-gen\/runtime";$/m, "the newest with a runtime is served by the package");
    assert.match(index, /^export const SERVED_VERSIONS: readonly string\[\] = \["2026-07-28", "draft-2026-06-07"\];$/m);
    const config = JSON.parse(files.find((file) => file.path === "package.json")!.content)["mcp-gen"];
    assert.deepEqual(config.revisions, revisions);
  },
);

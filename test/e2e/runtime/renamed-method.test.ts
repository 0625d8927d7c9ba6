/**
 * Every protocol method the runtime names is pinned to the generated maps: regenerated from
 * a schema derived from 2026-07-28 whose methods are renamed (as a spec update would rename
 * one; test/support/future-schema.ts derives the same way), the runtime fails to compile,
 * with an error at every line of its source that names an old method.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { repoRoot, schemaPath } from "../../support/schemas.js";

const REVISION = "2027-01-26";
/** The methods the runtime names, each renamed in the derived schema. */
const RENAMED = [
  "server/discover",
  "subscriptions/listen",
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "completion/complete",
  "notifications/cancelled",
  "notifications/progress",
  "notifications/message",
];
const renamed = (method: string) => `${method}_renamed`;

/** The 2026-07-28 schema with each RENAMED method's `const` renamed wherever a definition declares it. */
function derivedSchema(): string {
  const schema = JSON.parse(readFileSync(schemaPath("2026-07-28"), "utf8"));
  const found = new Set<string>();
  for (const definition of Object.values(schema.$defs) as Array<{ properties?: { method?: { const?: string } } }>) {
    const method = definition.properties?.method;
    if (method?.const !== undefined && RENAMED.includes(method.const)) {
      found.add(method.const);
      method.const = renamed(method.const);
    }
  }
  assert.deepEqual([...found].sort(), [...RENAMED].sort(), "every renamed method is declared in the schema");
  return JSON.stringify(schema);
}

function mcpGen(args: string[]) {
  const run = spawnSync(process.execPath, ["--import", "tsx", "cli/main.ts", "types", ...args], { cwd: repoRoot, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
}

/** Every line of the emitted runtime that names an old method in code (comments and legacy-era pins left out), as `path(line`. */
function namingSites(runtimeDir: string): string[] {
  const sites: string[] = [];
  for (const path of (readdirSync(runtimeDir, { recursive: true }) as string[]).filter((file) => file.endsWith(".ts"))) {
    readFileSync(join(runtimeDir, path), "utf8")
      .split("\n")
      .forEach((line, index) => {
        const code = line.trim();
        if (code.startsWith("*") || code.startsWith("//") || code.startsWith("/*")) return;
        // Pinned to the initialize-era revision's maps, which this schema does not change.
        if (/satisfies Legacy\./.test(line)) return;
        if (RENAMED.some((method) => line.includes(`"${method}"`))) sites.push(`${path}(${index + 1},`);
      });
  }
  return sites;
}

describe("a method renamed in a derived schema fails tsc on the runtime source, naming each site", { timeout: 180_000 }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "mcp-gen-renamed-"));
    writeFileSync(join(dir, "schema.json"), derivedSchema());
    mcpGen(["--schema", join(dir, "schema.json"), "--protocol-version", REVISION, "--out", dir]);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" })); // as in a project using it
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("every line naming an old method is an error, and the errors are the pins' own", () => {
    const runtime = join(dir, "v2701", "runtime");
    const tsc = spawnSync(
      process.execPath,
      [
        join(repoRoot, "node_modules", "typescript", "bin", "tsc"),
        "--ignoreConfig",
        "--noEmit",
        "--strict",
        "--target",
        "ES2022",
        "--module",
        "NodeNext",
        "--moduleResolution",
        "NodeNext",
        "--lib",
        "ES2023",
        "--skipLibCheck",
        "--types",
        "node",
        "--typeRoots",
        join(repoRoot, "node_modules", "@types"),
        // Every entry, so every module of the runtime is compiled.
        join(runtime, "index.ts"),
        join(runtime, "transports", "index.ts"),
        join(runtime, "testing", "index.ts"),
        join(runtime, "client", "index.ts"),
      ],
      { cwd: runtime, encoding: "utf8" },
    );
    assert.notEqual(tsc.status, 0, "the runtime must not compile against renamed methods");
    const errors = tsc.stdout.split("\n").filter((line) => line.includes("error TS"));
    const sites = namingSites(runtime);
    assert.ok(sites.length >= RENAMED.length, sites.join("\n"));
    const silent = sites.filter((site) => !errors.some((error) => error.startsWith(site)));
    assert.deepEqual(silent, [], `lines naming an old method that still compile:\n${silent.join("\n")}\n\ntsc said:\n${errors.join("\n")}`);
    // A pin names the old literal and what the map now holds.
    assert.ok(
      errors.some((error) => error.startsWith("connection.ts(") && /Type '"subscriptions\/listen"' does not satisfy the expected type/.test(error)),
      errors.join("\n"),
    );
    assert.ok(
      errors.some((error) => error.startsWith("tools.ts(") && /"tools\/call"/.test(error)),
      errors.join("\n"),
    );
  });
});

import assert from "node:assert/strict";
import { appendFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { explain, runCreate, runMcpGen, tempFolder } from "../../../cli/scaffold/helpers.js";
import { repoRoot } from "../../../support/schemas.js";

// One scaffold per kind of project, none installed (server-json reads package.json and src/
// only); each test works on its own project.
const PROJECTS = {
  stdio: ["--transport", "stdio"],
  http: ["--transport", "http"],
  both: ["--transport", "both"],
  oauth: ["--transport", "http", "--auth", "oauth"],
  redis: ["--transport", "both", "--event-source", "redis"],
} as const;
type Kind = keyof typeof PROJECTS;

/** The registry's pinned schema as shared beside the checkout (never copied into it). */
const registryDir = join(repoRoot, "..", "shared", "registry");
const env = { MCP_REGISTRY_SCHEMA_DIR: registryDir };
const E2E = { timeout: 240_000 };

let temp: ReturnType<typeof tempFolder>;
const dirOf = (kind: Kind) => join(temp.dir, kind);

before(
  () => {
    temp = tempFolder("mcp-gen-server-json");
    for (const [kind, flags] of Object.entries(PROJECTS)) {
      const run = runCreate([kind, "--yes", "--no-git", "--no-install", ...flags], temp.dir);
      assert.equal(run.status, 0, explain(run));
    }
  },
  { timeout: 600_000 },
);

after(() => temp.remove());

function serverJson(kind: Kind, args: string[] = []) {
  return runMcpGen(["server-json", ...args], dirOf(kind), env);
}

function written(kind: Kind): Record<string, any> {
  return JSON.parse(readFileSync(join(dirOf(kind), "server.json"), "utf8"));
}

// ajv-formats is CommonJS: its function is the default export, or that export's own default.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => void;

/** A validator of the pinned schema with every format ajv-formats knows checked. */
function registryValidator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(JSON.parse(readFileSync(join(registryDir, "server.schema.json"), "utf8")));
}

/**
 * What the project reads from its environment, told another way than server-json tells it:
 * the textual forms the scaffold's sources use (`process.env.X`, `env["X"]`, and the
 * helpers that take a variable's name as their first string argument).
 */
function readByText(kind: Kind): string[] {
  const src = join(dirOf(kind), "src");
  const texts = readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts"))
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8"));
  const names = new Set<string>();
  for (const text of texts) {
    for (const match of text.matchAll(/\b(?:process\.env|env)(?:\.([A-Z_][A-Z0-9_]*)|\[\s*"([A-Z_][A-Z0-9_]*)"\s*\])/g)) names.add(match[1] ?? match[2]!);
    for (const match of text.matchAll(/\b(?:\w+FromEnv|required)\(\s*(?:env,\s*)?"([A-Z_][A-Z0-9_]*)"/g)) names.add(match[1]!);
  }
  return [...names].sort();
}

function listedVariables(kind: Kind): string[] {
  return (written(kind).packages[0].environmentVariables as Array<{ name: string }>).map((entry) => entry.name).sort();
}

for (const kind of Object.keys(PROJECTS) as Kind[]) {
  test(`on a fresh ${kind} scaffold server-json writes a file the pinned registry schema accepts, formats on, listing exactly the variables the project reads`, E2E, () => {
    const run = serverJson(kind, ["--name", `io.github.octocat/${kind}`]);
    assert.equal(run.status, 0, explain(run));
    const document = written(kind);
    const validate = registryValidator();
    assert.equal(validate(document), true, JSON.stringify(validate.errors));
    assert.equal(document.name, `io.github.octocat/${kind}`);
    assert.equal(JSON.parse(readFileSync(join(dirOf(kind), "package.json"), "utf8")).mcpName, `io.github.octocat/${kind}`);
    assert.deepEqual(listedVariables(kind), readByText(kind));
    const entries = document.packages[0].environmentVariables as Array<{ name: string; isSecret?: boolean }>;
    assert.equal(entries.find((entry) => entry.name === "MCP_STATE_KEY")?.isSecret, true);
    const check = serverJson(kind, ["--check"]);
    assert.equal(check.status, 0, explain(check));
  });
}

test("each kind of project gets the entries its transports call for", E2E, () => {
  for (const kind of Object.keys(PROJECTS) as Kind[]) if (!readdirSync(dirOf(kind)).includes("server.json")) assert.equal(serverJson(kind, ["--name", `io.github.octocat/${kind}`]).status, 0);
  assert.equal(written("stdio").remotes, undefined);
  assert.deepEqual(written("stdio").packages[0].transport, { type: "stdio" });
  assert.deepEqual(written("http").packages[0].transport, { type: "streamable-http", url: "http://localhost:{PORT}/mcp" });
  assert.equal(written("http").remotes[0].type, "streamable-http");
  assert.equal(written("both").remotes.length, 1);
  assert.deepEqual(written("both").packages[0].packageArguments, [{ type: "positional", value: "--stdio" }]);
  assert.deepEqual(
    written("oauth").remotes[0].headers.map((header: { name: string; isSecret: boolean }) => [header.name, header.isSecret]),
    [["Authorization", true]],
  );
  assert.ok(listedVariables("oauth").includes("MCP_AUTH_ISSUER") && listedVariables("oauth").includes("MCP_PUBLIC_URL"));
  const redisUrl = written("redis").packages[0].environmentVariables.find((entry: { name: string }) => entry.name === "REDIS_URL");
  assert.equal(redisUrl?.isSecret, true);
});

test("after a version bump and a new environment variable --check fails naming the fields; after server-json again it passes", E2E, () => {
  const dir = dirOf("redis");
  if (!readdirSync(dir).includes("server.json")) assert.equal(serverJson("redis", ["--name", "io.github.octocat/redis"]).status, 0);
  const manifest = join(dir, "package.json");
  writeFileSync(manifest, readFileSync(manifest, "utf8").replace('"version": "0.1.0"', '"version": "0.2.0"'));
  const bumped = serverJson("redis", ["--check"]);
  assert.notEqual(bumped.status, 0, explain(bumped));
  assert.match(bumped.stderr, /server\.json has drifted from the project: version differs, packages\[0\]\.version differs \(run mcp-gen server-json/);
  appendFileSync(join(dir, "src", "tools", "ask-name.ts"), "\nexport const weatherKey = process.env.WEATHER_API_KEY;\n");
  const grown = serverJson("redis", ["--check"]);
  assert.notEqual(grown.status, 0, explain(grown));
  assert.match(grown.stderr, /packages\[0\]\.environmentVariables\[WEATHER_API_KEY\] is missing/);
  const rerun = serverJson("redis");
  assert.equal(rerun.status, 0, explain(rerun));
  const check = serverJson("redis", ["--check"]);
  assert.equal(check.status, 0, explain(check));
  assert.equal(written("redis").version, "0.2.0");
  assert.ok(listedVariables("redis").includes("WEATHER_API_KEY"));
  assert.deepEqual(listedVariables("redis"), readByText("redis"));
});

test("after the HTTP transport is removed --check fails naming the remotes", E2E, () => {
  const dir = dirOf("both");
  if (!readdirSync(dir).includes("server.json")) assert.equal(serverJson("both", ["--name", "io.github.octocat/both"]).status, 0);
  const run = join(dir, "src", "run.ts");
  const served = readFileSync(run, "utf8");
  const stdioOnly = served.replace(/else await serveHttpFromEnv\([^\n]*\n/, "else await serveStdio(server);\n");
  assert.notEqual(stdioOnly, served, "src/run.ts serves HTTP where the test looks for it");
  writeFileSync(run, stdioOnly);
  for (const file of ["src/fetch.ts", "src/serve/http.ts"]) rmSync(join(dir, file));
  const check = serverJson("both", ["--check"]);
  assert.notEqual(check.status, 0, explain(check));
  assert.match(check.stderr, /remotes is no longer in the project/);
});

test("a server.json mcp-gen did not write is refused with a --force hint; with --force the fields it does not derive are kept", E2E, () => {
  const dir = dirOf("stdio");
  const file = join(dir, "server.json");
  writeFileSync(file, JSON.stringify({ name: "io.github.octocat/hand-kept", title: "Hand kept", version: "9.9.9" }));
  const refused = serverJson("stdio", ["--name", "io.github.octocat/stdio"]);
  assert.notEqual(refused.status, 0, explain(refused));
  assert.equal(refused.stderr.trimEnd().split("\n").length, 1, explain(refused));
  assert.match(refused.stderr, /^error: server\.json was not written by mcp-gen .*--force/);
  assert.equal(JSON.parse(readFileSync(file, "utf8")).version, "9.9.9", "left alone");
  const forced = serverJson("stdio", ["--name", "io.github.octocat/stdio", "--force"]);
  assert.equal(forced.status, 0, explain(forced));
  assert.equal(written("stdio").title, "Hand kept");
  assert.equal(written("stdio").version, "0.1.0");
  const validate = registryValidator();
  assert.equal(validate(written("stdio")), true, JSON.stringify(validate.errors));
});

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { DEFAULT_REMOTE_URL, deriveServerJson, servedTransports, type ProjectFacts, type ServedTransports } from "../../../../cli/ship/server-json/derive.js";
import { registryRuleProblems } from "../../../../cli/ship/server-json/rules.js";
import { loadRegistrySchema, schemaProblems } from "../../../../cli/ship/server-json/schema.js";
import { repoRoot } from "../../../support/schemas.js";

const identity = { name: "io.github.octocat/weather", packageName: "weather", version: "0.3.1", description: "Weather forecasts", mcpNameChanged: false };
const variables = new Map<string, string[]>([
  ["MCP_STATE_KEY", ["src/startup.ts"]],
  ["PORT", ["src/serve/http.ts"]],
  ["REDIS_URL", ["src/event-sources/redis.ts"]],
  ["WEATHER_TOKEN", ["src/tools/weather.ts"]],
]);

function facts(transports: Partial<ServedTransports>, remoteUrl = DEFAULT_REMOTE_URL): ProjectFacts {
  return { identity, transports: { stdio: false, http: false, oauth: false, ...transports }, variables, remoteUrl };
}

type Entry = Record<string, any>;

test("the transports served are told by the serving functions the source calls", () => {
  assert.deepEqual(servedTransports(new Set(["serveStdio"])), { stdio: true, http: false, oauth: false });
  assert.deepEqual(servedTransports(new Set(["serveHttpFromEnv", "oauthFromEnv"])), { stdio: false, http: true, oauth: true });
});

test("every derived document passes the pinned registry schema and the registry's rules", async () => {
  const schema = await loadRegistrySchema({ MCP_REGISTRY_SCHEMA_DIR: join(repoRoot, "..", "shared", "registry") });
  for (const served of [{ stdio: true }, { http: true }, { stdio: true, http: true }, { http: true, oauth: true }]) {
    const document = deriveServerJson(facts(served));
    assert.deepEqual(await schemaProblems(document, schema, repoRoot), [], JSON.stringify(served));
    assert.deepEqual(registryRuleProblems(document), [], JSON.stringify(served));
  }
});

test("a stdio server is an npm package on stdio; serving both, it is started with --stdio", () => {
  const stdio = deriveServerJson(facts({ stdio: true }));
  assert.equal(stdio.remotes, undefined);
  const [entry] = stdio.packages as Entry[];
  assert.deepEqual(entry!.transport, { type: "stdio" });
  assert.equal(entry!.identifier, "weather");
  assert.equal(entry!.version, "0.3.1");
  const both = deriveServerJson(facts({ stdio: true, http: true }));
  assert.deepEqual((both.packages as Entry[])[0]!.packageArguments, [{ type: "positional", value: "--stdio" }]);
  assert.equal((both.remotes as Entry[]).length, 1);
});

test("an HTTP server is a streamable-http remote with its host a variable, and its package serves on localhost:{PORT}", () => {
  const http = deriveServerJson(facts({ http: true }));
  assert.deepEqual((http.packages as Entry[])[0]!.transport, { type: "streamable-http", url: "http://localhost:{PORT}/mcp" });
  const [remote] = http.remotes as Entry[];
  assert.equal(remote!.url, "https://{host}/mcp");
  assert.deepEqual(Object.keys(remote!.variables), ["host"]);
  assert.equal(remote!.headers, undefined);
  const placed = deriveServerJson(facts({ http: true }, "https://weather.example.com/mcp"));
  assert.deepEqual((placed.remotes as Entry[])[0], { type: "streamable-http", url: "https://weather.example.com/mcp" });
});

test("an OAuth server's remote asks for the Authorization header, a required secret", () => {
  const [remote] = deriveServerJson(facts({ http: true, oauth: true })).remotes as Entry[];
  assert.deepEqual(
    remote!.headers.map((header: Entry) => [header.name, header.isRequired, header.isSecret]),
    [["Authorization", true, true]],
  );
});

test("every variable read is listed with a description; MCP_STATE_KEY, REDIS_URL and secret-named ones are secrets", () => {
  const entries = (deriveServerJson(facts({ stdio: true })).packages as Entry[])[0]!.environmentVariables as Entry[];
  assert.deepEqual(
    entries.map((entry) => entry.name),
    [...variables.keys()],
  );
  for (const entry of entries) assert.ok(entry.description.length > 0, entry.name);
  assert.deepEqual(entries.filter((entry) => entry.isSecret).map((entry) => entry.name), ["MCP_STATE_KEY", "REDIS_URL", "WEATHER_TOKEN"]);
  assert.equal(entries.find((entry) => entry.name === "WEATHER_TOKEN")!.description, "Read by src/tools/weather.ts");
  // With Redis several processes share clients: the state key is then required.
  assert.equal(entries.find((entry) => entry.name === "MCP_STATE_KEY")!.isRequired, true);
});

test("a bundle is an mcpb package: its download URL, the version and its sha256, on stdio; it passes the registry schema and rules", async () => {
  const bundle = { url: "https://github.com/octocat/weather/releases/download/v0.3.1/weather-0.3.1.mcpb", sha256: "a".repeat(64) };
  const document = deriveServerJson({ ...facts({ stdio: true }), bundle });
  const packages = document.packages as Entry[];
  assert.equal(packages.length, 2);
  assert.deepEqual(packages[1], { registryType: "mcpb", identifier: bundle.url, version: "0.3.1", fileSha256: bundle.sha256, transport: { type: "stdio" } });
  const schema = await loadRegistrySchema({ MCP_REGISTRY_SCHEMA_DIR: join(repoRoot, "..", "shared", "registry") });
  assert.deepEqual(await schemaProblems(document, schema, repoRoot), []);
  assert.deepEqual(registryRuleProblems(document), []);
  const plain = deriveServerJson({ ...facts({ stdio: true }), bundle: { ...bundle, url: "http://example.org/weather.mcpb" } });
  assert.deepEqual(registryRuleProblems(plain), [{ field: "packages[1].identifier", problem: "http://example.org/weather.mcpb must be an absolute https URL" }]);
});

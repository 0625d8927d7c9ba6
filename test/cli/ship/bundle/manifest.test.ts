/**
 * The bundle's manifest.json as derived from a project's facts: how the client starts the
 * server, which environment variables become user_config (and how), the tools, the author.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { deriveManifest, type BundleFacts } from "../../../../cli/ship/bundle/manifest.js";

const PACKAGE = { name: "weather", version: "1.2.3", description: "Forecasts", engines: { node: ">=20.19" } };
const TOOLS = [{ name: "forecast", description: "Tomorrow's weather" }, { name: "ping" }];

function facts(overrides: Partial<BundleFacts> = {}): BundleFacts {
  return { packageJson: PACKAGE, servesHttp: false, variables: new Map(), tools: TOOLS, ...overrides };
}

type Manifest = {
  server: { entry_point: string; mcp_config: { command: string; args: string[]; env?: Record<string, string> } };
  user_config?: Record<string, Record<string, unknown>>;
  tools: unknown[];
  author: unknown;
};

test("the server is node on the built entry point; a project serving HTTP too is started with --stdio", () => {
  const stdioOnly = deriveManifest(facts()).manifest as Manifest;
  assert.equal(stdioOnly.server.entry_point, "dist/src/main.js");
  assert.deepEqual(stdioOnly.server.mcp_config, { command: "node", args: ["${__dirname}/dist/src/main.js"] });
  const both = deriveManifest(facts({ servesHttp: true })).manifest as Manifest;
  assert.deepEqual(both.server.mcp_config.args, ["${__dirname}/dist/src/main.js", "--stdio"]);
});

test("the manifest lists the tools the server lists, in its order, with their descriptions where they have one", () => {
  const { manifest } = deriveManifest(facts());
  assert.deepEqual((manifest as Manifest).tools, [{ name: "forecast", description: "Tomorrow's weather" }, { name: "ping" }]);
});

test("each variable the source reads is a user_config field handed through mcp_config.env; secrets are sensitive, defaults kept; HTTP-only ones left out", () => {
  const variables = new Map([
    ["MCP_STATE_KEY", ["src/main.ts"]],
    ["MCP_LOG_LEVEL", ["src/log.ts"]],
    ["WEATHER_API_TOKEN", ["src/tools/forecast.ts"]],
    ["PORT", ["src/serve/http.ts"]],
    ["TRUSTED_PROXIES", ["src/serve/limits.ts"]],
  ]);
  const manifest = deriveManifest(facts({ servesHttp: true, variables })).manifest as Manifest;
  assert.deepEqual(manifest.server.mcp_config.env, {
    MCP_STATE_KEY: "${user_config.mcp_state_key}",
    MCP_LOG_LEVEL: "${user_config.mcp_log_level}",
    WEATHER_API_TOKEN: "${user_config.weather_api_token}",
  });
  assert.deepEqual(Object.keys(manifest.user_config!), ["mcp_state_key", "mcp_log_level", "weather_api_token"]);
  assert.equal(manifest.user_config!["mcp_state_key"]!["sensitive"], true);
  assert.equal(manifest.user_config!["mcp_log_level"]!["default"], "warn");
  assert.equal(manifest.user_config!["mcp_log_level"]!["sensitive"], undefined);
  assert.deepEqual(manifest.user_config!["weather_api_token"], {
    type: "string",
    title: "WEATHER_API_TOKEN",
    description: "Read by src/tools/forecast.ts",
    sensitive: true,
  });
});

test("a project sharing its state through Redis must be given MCP_STATE_KEY: the field is required", () => {
  const variables = new Map([["MCP_STATE_KEY", ["src/main.ts"]], ["REDIS_URL", ["src/events.ts"]]]);
  const manifest = deriveManifest(facts({ variables })).manifest as Manifest;
  assert.equal(manifest.user_config!["mcp_state_key"]!["required"], true);
  assert.equal(manifest.user_config!["redis_url"]!["sensitive"], true);
});

test("no variables read: no env and no user_config", () => {
  const manifest = deriveManifest(facts()).manifest as Manifest;
  assert.equal(manifest.user_config, undefined);
  assert.equal(manifest.server.mcp_config.env, undefined);
});

test("the author comes from package.json in either form, an email or URL kept only when it is one; with none, the package's name and a note", () => {
  const fromString = deriveManifest(facts({ packageJson: { ...PACKAGE, author: "Ada Lovelace <ada@example.org> (https://example.org)" } }));
  assert.deepEqual((fromString.manifest as Manifest).author, { name: "Ada Lovelace", email: "ada@example.org", url: "https://example.org" });
  assert.deepEqual(fromString.notes, []);
  const fromObject = deriveManifest(facts({ packageJson: { ...PACKAGE, author: { name: "Ada", email: "not an email", url: "also not" } } }));
  assert.deepEqual((fromObject.manifest as Manifest).author, { name: "Ada" });
  const none = deriveManifest(facts());
  assert.deepEqual((none.manifest as Manifest).author, { name: "weather" });
  assert.match(none.notes[0]!, /package\.json has no "author"/);
});

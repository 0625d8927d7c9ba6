import assert from "node:assert/strict";
import { test } from "node:test";
import { describeDrift, driftOf } from "../../../../cli/ship/server-json/drift.js";

const written = {
  name: "io.github.octocat/weather",
  version: "0.1.0",
  packages: [
    {
      identifier: "weather",
      version: "0.1.0",
      transport: { type: "stdio" },
      environmentVariables: [
        { name: "MCP_LOG_LEVEL", description: "log level" },
        { name: "MCP_STATE_KEY", description: "key", isSecret: true },
      ],
    },
  ],
  remotes: [{ type: "streamable-http", url: "https://{host}/mcp" }],
};

function drifts(project: unknown): string[] {
  return driftOf(project, written).map(describeDrift);
}

test("a file equal to what the project makes has no drift", () => {
  assert.deepEqual(driftOf(structuredClone(written), written), []);
});

test("a version bump names the server's version and the package's", () => {
  const bumped = structuredClone(written);
  bumped.version = "0.2.0";
  bumped.packages[0]!.version = "0.2.0";
  assert.deepEqual(drifts(bumped), ["version differs", "packages[0].version differs"]);
});

test("a new environment variable is named by its name, not by an index that shifted", () => {
  const grown = structuredClone(written);
  grown.packages[0]!.environmentVariables.splice(1, 0, { name: "MCP_NEW_SETTING", description: "new" });
  assert.deepEqual(drifts(grown), ["packages[0].environmentVariables[MCP_NEW_SETTING] is missing"]);
});

test("a variable the project no longer reads, and a changed flag on one it reads, are each named", () => {
  const changed = structuredClone(written);
  changed.packages[0]!.environmentVariables = [{ name: "MCP_STATE_KEY", description: "key", isSecret: false }];
  assert.deepEqual(drifts(changed), [
    "packages[0].environmentVariables[MCP_STATE_KEY].isSecret differs",
    "packages[0].environmentVariables[MCP_LOG_LEVEL] is no longer in the project",
  ]);
});

test("a removed transport names the remotes the project no longer has", () => {
  const { remotes: _removed, ...stdioOnly } = structuredClone(written);
  assert.deepEqual(drifts(stdioOnly), ["remotes is no longer in the project"]);
});

test("a transport that changed kind names the transport's type", () => {
  const http = structuredClone(written);
  http.packages[0]!.transport = { type: "streamable-http", url: "http://localhost:{PORT}/mcp" } as never;
  assert.deepEqual(drifts(http), ["packages[0].transport.type differs", "packages[0].transport.url is missing"]);
});

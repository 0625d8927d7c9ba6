import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { CliError } from "../../../../cli/errors.js";
import { fieldOf, isUri, loadRegistrySchema, REGISTRY_SCHEMA_FILE, schemaProblems } from "../../../../cli/ship/server-json/schema.js";
import { repoRoot } from "../../../support/schemas.js";

/** The registry's schema as shared beside the checkout (never copied into it). */
const sharedRegistry = join(repoRoot, "..", "shared", "registry");

const minimal = { name: "io.github.octocat/weather", description: "Weather", version: "1.0.0" };

test("the pinned registry schema is read from $MCP_REGISTRY_SCHEMA_DIR and its bytes are checked against the lock's sha256", async () => {
  const schema = await loadRegistrySchema({ MCP_REGISTRY_SCHEMA_DIR: sharedRegistry });
  assert.equal(schema.$id, "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json");
  const dir = mkdtempSync(join(tmpdir(), "mcp-gen-registry-"));
  try {
    writeFileSync(join(dir, REGISTRY_SCHEMA_FILE), `${readFileSync(join(sharedRegistry, REGISTRY_SCHEMA_FILE), "utf8")} `);
    await assert.rejects(loadRegistrySchema({ MCP_REGISTRY_SCHEMA_DIR: dir }), (error: unknown) => {
      assert.ok(error instanceof CliError);
      assert.match(error.message, /is not the pinned registry schema 2025-12-11: sha256 [0-9a-f]{64}, pinned 3fba0959/);
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a document breaking the registry schema is reported field by field, formats checked", async () => {
  const schema = await loadRegistrySchema({ MCP_REGISTRY_SCHEMA_DIR: sharedRegistry });
  assert.deepEqual(await schemaProblems(minimal, schema, repoRoot), []);
  const broken = { ...minimal, websiteUrl: "not a uri", packages: [{ registryType: "npm", identifier: "weather", version: "latest", transport: { type: "stdio" } }] };
  const fields = (await schemaProblems(broken, schema, repoRoot)).map((problem) => problem.field);
  assert.deepEqual(fields.sort(), ["packages[0].version", "websiteUrl"]);
  const { description: _left, ...undescribed } = minimal;
  assert.deepEqual((await schemaProblems(undescribed, schema, repoRoot)).map((problem) => problem.field), ["(the document)"]);
});

test("a JSON pointer reads as the field path the drift report uses", () => {
  assert.equal(fieldOf(""), "(the document)");
  assert.equal(fieldOf("/packages/0/environmentVariables/3/name"), "packages[0].environmentVariables[3].name");
  assert.equal(fieldOf("/_meta/io.modelcontextprotocol.registry~1publisher-provided"), "_meta.io.modelcontextprotocol.registry/publisher-provided");
});

test("the uri check used without ajv-formats takes absolute URIs only", () => {
  for (const value of ["https://example.com/x", "urn:isbn:0451450523", "mailto:a@example.com"]) assert.equal(isUri(value), true, value);
  for (const value of ["example.com", "/relative", "https://exa mple.com", ""]) assert.equal(isUri(value), false, value);
});

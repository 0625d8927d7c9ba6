import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { loadSchema } from "../../../cli/generate/load.js";
import { schemaPath } from "../../support/schemas.js";
import { closedPort, serveOnLoopback } from "./helpers.js";

test("a file and the same bytes over http give the same sha256", async () => {
  const fromFile = await loadSchema(schemaPath("2026-07-28"));
  const server = await serveOnLoopback(readFileSync(schemaPath("2026-07-28"), "utf8"));
  try {
    const fromUrl = await loadSchema(server.url);
    assert.equal(fromUrl.sha256, fromFile.sha256);
    assert.equal(fromUrl.isUrl, true);
    assert.deepEqual(Object.keys(fromUrl.json.$defs as object).length, Object.keys(fromFile.json.$defs as object).length);
  } finally {
    await server.close();
  }
});

test("an unreachable URL is a CliError naming the address and a local alternative", async () => {
  const url = `http://127.0.0.1:${await closedPort()}/schema.json`;
  await assert.rejects(loadSchema(url), (error: Error & { hint?: string }) => {
    assert.equal(error.name, "CliError");
    assert.match(error.message, /^cannot reach http:\/\/127\.0\.0\.1:\d+\/schema\.json \(ECONNREFUSED\)$/);
    assert.match(error.hint ?? "", /--schema <path>/);
    return true;
  });
});

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { put, tempFolder } from "../cli/generate/helpers.js";
import { resolveSchema, type SchemaSources } from "./schemas.js";

const body = '{"$defs":{}}\n';
const sha256 = createHash("sha256").update(body).digest("hex");

let temp: ReturnType<typeof tempFolder>;
let server: { url: string; requests: () => number; close: () => Promise<void> };
beforeEach(async () => {
  temp = tempFolder("mcp-gen-schemas");
  let requests = 0;
  const http = createServer((_request, response) => {
    requests++;
    response.end(body);
  });
  await new Promise<void>((done) => http.listen(0, "127.0.0.1", done));
  server = {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/schema.json`,
    requests: () => requests,
    close: () => new Promise<void>((done) => http.close(() => done())),
  };
});
afterEach(async () => {
  await server.close();
  temp.remove();
});

const sources = (pin: { url: string; sha256: string }, envDir?: string): SchemaSources => ({
  envDir,
  sharedDir: join(temp.dir, "shared"),
  cacheDir: join(temp.dir, "cache"),
  pins: { "2026-07-28": pin },
  limits: { maxBytes: 1024 * 1024, timeoutMs: 5_000 },
});

test("a schema is taken from $MCP_SCHEMAS_DIR first, then from ../shared/schemas, without any download", async () => {
  const inEnv = put(join(temp.dir, "env", "2026-07-28", "schema.json"), body);
  const inShared = put(join(temp.dir, "shared", "2026-07-28", "schema.json"), body);
  const pin = { url: server.url, sha256 };
  assert.equal(await resolveSchema("2026-07-28", sources(pin, join(temp.dir, "env"))), inEnv);
  assert.equal(await resolveSchema("2026-07-28", sources(pin, join(temp.dir, "elsewhere"))), inShared);
  assert.equal(await resolveSchema("2026-07-28", sources(pin)), inShared);
  assert.equal(server.requests(), 0);
});

test("otherwise it is downloaded once from the pinned URL into the cache, verified by its sha256", async () => {
  const first = await resolveSchema("2026-07-28", sources({ url: server.url, sha256 }));
  assert.equal(first, join(temp.dir, "cache", "2026-07-28", "schema.json"));
  assert.equal(readFileSync(first, "utf8"), body);
  assert.equal(await resolveSchema("2026-07-28", sources({ url: server.url, sha256 })), first);
  assert.equal(server.requests(), 1, "the second lookup reads the cache");
});

test("a download whose sha256 is not the pinned one is refused and not cached", async () => {
  const wrong = "0".repeat(64);
  await assert.rejects(resolveSchema("2026-07-28", sources({ url: server.url, sha256: wrong })), /has sha256 [0-9a-f]{64}, not the pinned 0{64}; not cached/);
  assert.equal(existsSync(join(temp.dir, "cache", "2026-07-28", "schema.json")), false);
});

test("with no source reachable, one line names the missing file and the three ways to provide it", async () => {
  await server.close();
  server.close = async () => undefined;
  await assert.rejects(resolveSchema("2026-07-28", sources({ url: server.url, sha256 })), (error: Error) => {
    assert.doesNotMatch(error.message, /\n/);
    assert.match(
      error.message,
      /^upstream schema 2026-07-28\/schema\.json not found \(cannot reach http:\/\/127\.0\.0\.1:\d+\/schema\.json \(ECONNREFUSED\)\)/,
    );
    assert.match(error.message, /set MCP_SCHEMAS_DIR .*, put it at .*shared\/2026-07-28\/schema\.json, or let the tests download it once/);
    return true;
  });
});

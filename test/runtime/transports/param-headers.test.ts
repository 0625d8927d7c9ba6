import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, it } from "node:test";
import { createServer } from "../../../packages/runtime/src/index.js";
import { readParamHeaders } from "../../../packages/runtime/src/transports/param-headers.js";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { post, request } from "./http-helpers.js";

const T = { timeout: 20_000 };
const b64 = (value: string) => `=?base64?${Buffer.from(value).toString("base64")}?=`;

/** POSTs through node:http, which (unlike fetch) lets a test send a latin-1 byte in a header value. */
function rawPost(url: string, message: object, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    outgoing.once("error", reject);
    outgoing.end(body);
  });
}

describe("Mcp-Param-* headers checked against x-mcp-header tool parameters (Streamable HTTP)", () => {
  let handle: HttpServerHandle;
  const runs: unknown[] = [];

  before(async () => {
    const server = createServer({ name: "headers", version: "1" });
    const inputSchema = {
      type: "object" as const,
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        limit: { type: "integer", "x-mcp-header": "Limit" },
        dryRun: { type: "boolean", "x-mcp-header": "Dry-Run" },
        scope: { type: "object", properties: { tenant: { type: "string", "x-mcp-header": "Tenant" } } },
      },
    };
    server.addTool({ name: "query", inputSchema }, (args) => (runs.push(args), { content: [] }));
    handle = await serveHttp(server, { host: "127.0.0.1", port: 0 });
  });
  after(() => handle?.close());

  const call = (id: number, args: Record<string, unknown>) => request(id, "tools/call", { name: "query", arguments: args });

  it("matching headers pass: plain, Base64-decoded, integers compared as numbers, booleans, nested properties", T, async () => {
    const ok = await post(handle.url, call(1, { region: "Hello, 世界", limit: 42, dryRun: false, scope: { tenant: "acme" } }), {
      "Mcp-Param-Region": b64("Hello, 世界"),
      "mcp-param-limit": "42.0",
      "MCP-PARAM-DRY-RUN": "false",
      "Mcp-Param-Tenant": "acme",
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.result.resultType, "complete");
    const literal = await post(handle.url, call(2, { region: "=?base64?SGVsbG8=" }), { "Mcp-Param-Region": "=?base64?SGVsbG8=" });
    assert.equal(literal.status, 200, "a value without the ?= suffix is literal");
    const absent = await post(handle.url, call(3, { note: 1 }));
    assert.equal(absent.status, 200, "no value in the body: no header expected");
  });

  it("a missing, mismatched, malformed or invalid-character header is 400 with -32020, and the tool never runs", T, async () => {
    const before = runs.length;
    const cases: [Record<string, unknown>, Record<string, string>, RegExp][] = [
      [{ region: "eu" }, {}, /Mcp-Param-Region is missing/],
      [{ region: "eu" }, { "Mcp-Param-Region": "us" }, /does not match the body's region/],
      [{ region: "Hello" }, { "Mcp-Param-Region": "=?base64?SGVsbG8?=" }, /malformed/],
      [{ region: "Hello" }, { "Mcp-Param-Region": "=?base64?SGVs!!!bG8=?=" }, /malformed/],
      [{ limit: 7 }, { "Mcp-Param-Limit": "7x" }, /does not match/],
      [{ dryRun: true }, { "Mcp-Param-Dry-Run": "True" }, /does not match/],
      [{ scope: { tenant: "a" } }, { "Mcp-Param-Tenant": "b" }, /scope.tenant/],
      [{}, { "Mcp-Param-Region": "eu" }, /body has no value/],
    ];
    for (const [index, [args, headers, message]] of cases.entries()) {
      const refused = await post(handle.url, call(10 + index, args), headers);
      assert.equal(refused.status, 400, JSON.stringify(args));
      assert.equal(refused.body.error.code, -32020);
      assert.match(refused.body.error.message, message);
    }
    const latin1 = await rawPost(handle.url, call(30, { region: "é" }), {
      "mcp-method": "tools/call",
      "mcp-name": "query",
      "mcp-protocol-version": "2026-07-28",
      "mcp-param-region": Buffer.from("é", "latin1").toString("latin1"),
    });
    assert.equal(latin1.status, 400);
    assert.match(latin1.body.error.message, /characters a header value may not hold/);
    assert.equal(runs.length, before);
  });
});

describe("x-mcp-header annotations are checked when the tool is added", () => {
  it("reads every annotated property's path, header and type", () => {
    const found = readParamHeaders("t", {
      type: "object",
      properties: { a: { type: "string", "x-mcp-header": "A" }, b: { type: "object", properties: { c: { type: "integer", "x-mcp-header": "C" } } } },
    });
    assert.deepEqual(found, [
      { name: "A", header: "mcp-param-a", path: ["a"], type: "string" },
      { name: "C", header: "mcp-param-c", path: ["b", "c"], type: "integer" },
    ]);
  });

  it("refuses names that are not tokens or repeat case-insensitively, number types, and annotations outside a properties chain", () => {
    const server = createServer({ name: "h", version: "1" });
    const add =
      (properties: object, extra: object = {}) =>
      () =>
        server.addTool({ name: "bad", inputSchema: { type: "object", properties, ...extra } }, () => ({ content: [] }));
    assert.throws(add({ a: { type: "string", "x-mcp-header": "has space" } }), /must be an HTTP token/);
    assert.throws(add({ a: { type: "string", "x-mcp-header": "" } }), /must be an HTTP token/);
    assert.throws(add({ a: { type: "string", "x-mcp-header": "X" }, b: { type: "string", "x-mcp-header": "x" } }), /used twice/);
    assert.throws(add({ a: { type: "number", "x-mcp-header": "A" } }), /string, integer or boolean/);
    assert.throws(add({ a: { type: "array", items: { type: "string", "x-mcp-header": "A" } } }), /through "properties" only/);
    assert.throws(add({}, { anyOf: [{ properties: { a: { type: "string", "x-mcp-header": "A" } } }] }), /through "properties" only/);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  checkMcpHeaders,
  checkOrigin,
  checkVerb,
  decodeHeaderValue,
  encodeHeaderValue,
  isLocalhostOrigin,
  parseBody,
  statusForErrorCode,
} from "../../../packages/runtime/src/transports/http-request.js";
import type { JsonRpcMessage } from "../../../packages/runtime/src/jsonrpc.js";

/** The header checks take a header source (a web Headers here, as the fetch path gives them). */
const checkHeaders = (headers: Record<string, string>, message: Parameters<typeof checkMcpHeaders>[1]) => checkMcpHeaders(new Headers(headers), message);

const V = "2026-07-28";
const meta = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} };
const call = (name: string): JsonRpcMessage => ({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, _meta: meta } });
const codeOf = (rejection: unknown) => (rejection as { body: { error: { code: number } } }).body.error.code;

describe("MCP request headers are checked against the body", () => {
  it("accepts headers equal to the body, names case-insensitive (node lowercases them)", () => {
    const headers = { "mcp-method": "tools/call", "mcp-name": "echo", "mcp-protocol-version": V };
    assert.equal(checkHeaders(headers, call("echo")), undefined);
  });

  it("a request without Mcp-Method is a header mismatch (-32020, 400) carrying the request id", () => {
    const rejection = checkHeaders({ "mcp-name": "echo", "mcp-protocol-version": V }, call("echo"));
    assert.equal(rejection?.status, 400);
    assert.equal(codeOf(rejection), -32020);
    assert.equal((rejection!.body as { id: unknown }).id, 7);
  });

  it("method values are case-sensitive", () => {
    const rejection = checkHeaders({ "mcp-method": "TOOLS/CALL", "mcp-name": "echo", "mcp-protocol-version": V }, call("echo"));
    assert.equal(codeOf(rejection), -32020);
  });

  it("Mcp-Name must mirror params.name, and is required when the body has one", () => {
    assert.equal(codeOf(checkHeaders({ "mcp-method": "tools/call", "mcp-name": "other", "mcp-protocol-version": V }, call("echo"))), -32020);
    assert.equal(codeOf(checkHeaders({ "mcp-method": "tools/call", "mcp-protocol-version": V }, call("echo"))), -32020);
  });

  it("Mcp-Name mirrors params.uri for resources/read", () => {
    const read: JsonRpcMessage = { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "file:///x", _meta: meta } };
    assert.equal(checkHeaders({ "mcp-method": "resources/read", "mcp-name": "file:///x", "mcp-protocol-version": V }, read), undefined);
    assert.equal(codeOf(checkHeaders({ "mcp-method": "resources/read", "mcp-name": "file:///y", "mcp-protocol-version": V }, read)), -32020);
  });

  it("a =?base64?...?= Mcp-Name is decoded before comparing", () => {
    const name = "héllo wörld";
    const headers = { "mcp-method": "tools/call", "mcp-name": encodeHeaderValue(name), "mcp-protocol-version": V };
    assert.match(headers["mcp-name"], /^=\?base64\?.*\?=$/);
    assert.equal(checkHeaders(headers, call(name)), undefined);
  });

  it("a malformed Base64 Mcp-Name is refused", () => {
    const headers = { "mcp-method": "tools/call", "mcp-name": "=?base64?SGVs!!!bG8=?=", "mcp-protocol-version": V };
    assert.equal(codeOf(checkHeaders(headers, call("Hello"))), -32020);
  });

  it("MCP-Protocol-Version must equal the _meta protocol version", () => {
    assert.equal(codeOf(checkHeaders({ "mcp-method": "tools/call", "mcp-name": "echo", "mcp-protocol-version": "v999" }, call("echo"))), -32020);
    assert.equal(codeOf(checkHeaders({ "mcp-method": "tools/call", "mcp-name": "echo" }, call("echo"))), -32020);
  });

  it("a notification is checked only for the headers it carries", () => {
    const note: JsonRpcMessage = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } };
    assert.equal(checkHeaders({}, note), undefined);
    assert.equal(codeOf(checkHeaders({ "mcp-method": "notifications/other" }, note)), -32020);
  });
});

describe("Base64 header values", () => {
  it("decodes the sentinel form strictly and leaves other values literal", () => {
    assert.equal(decodeHeaderValue(`=?base64?${Buffer.from("Hello").toString("base64")}?=`), "Hello");
    assert.equal(decodeHeaderValue("=?base64?SGVsbG8?="), undefined, "missing padding");
    assert.equal(decodeHeaderValue("SGVsbG8="), "SGVsbG8=", "no prefix: literal");
    assert.equal(decodeHeaderValue("=?base64?SGVsbG8="), "=?base64?SGVsbG8=", "no suffix: literal");
  });

  it("encodes only what cannot travel as plain visible ASCII", () => {
    assert.equal(encodeHeaderValue("echo"), "echo");
    assert.equal(decodeHeaderValue(encodeHeaderValue(" padded ")), " padded ");
    assert.equal(decodeHeaderValue(encodeHeaderValue("=?base64?looks-encoded?=")), "=?base64?looks-encoded?=");
  });
});

describe("request gatekeeping", () => {
  it("only POST is served: GET and DELETE get 405 with Allow: POST", () => {
    assert.equal(checkVerb("POST"), undefined);
    for (const verb of ["GET", "DELETE"]) {
      const rejection = checkVerb(verb);
      assert.equal(rejection?.status, 405);
      assert.equal(rejection?.headers?.allow, "POST");
    }
  });

  it("a present Origin outside the allow-list is refused with 403; an absent one is not a browser", () => {
    assert.equal(checkOrigin(undefined, isLocalhostOrigin), undefined);
    assert.equal(checkOrigin("http://localhost:5173", isLocalhostOrigin), undefined);
    assert.equal(checkOrigin("http://127.0.0.1", isLocalhostOrigin), undefined);
    assert.equal(checkOrigin("http://evil.example", isLocalhostOrigin)?.status, 403);
    assert.equal(checkOrigin("http://localhost.evil.example", isLocalhostOrigin)?.status, 403);
    assert.equal(checkOrigin("https://app.example", ["https://app.example"]), undefined);
  });

  it("a refused Origin's 403 names it and says how to allow one", () => {
    const refused = checkOrigin("https://app.example", isLocalhostOrigin);
    assert.equal(refused?.status, 403);
    const { message } = (refused?.body as { error: { message: string } }).error;
    assert.match(message, /^Origin https:\/\/app\.example is not allowed: /);
    assert.match(message, /allowedOrigins option/);
    assert.match(message, /MCP_ALLOWED_ORIGINS/);
  });

  it("malformed JSON is a parse error, an array a refused batch, both 400", () => {
    const parse = parseBody("{nope");
    assert.ok("status" in parse);
    assert.equal(parse.status, 400);
    assert.equal(codeOf(parse), -32700);
    const batch = parseBody("[]");
    assert.ok("status" in batch);
    assert.equal(codeOf(batch), -32600);
  });

  it("a body that is a JSON string is an invalid request, never decoded a second time", () => {
    const wrapped = parseBody(JSON.stringify(JSON.stringify(call("echo"))));
    assert.ok("status" in wrapped, "the request inside the string must not come out");
    assert.equal(wrapped.status, 400);
    assert.equal(codeOf(wrapped), -32600);
  });

  it("maps the errors the spec pins to HTTP statuses", () => {
    assert.equal(statusForErrorCode(-32601), 404);
    for (const code of [-32700, -32600, -32602, -32020, -32021, -32022]) assert.equal(statusForErrorCode(code), 400);
    assert.equal(statusForErrorCode(-32002), 200);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classifyMessage, parseMessage } from "../../packages/runtime/src/transports/index.js";

describe("JSON-RPC framing", () => {
  it("tells requests, notifications and responses apart, from text or objects", () => {
    assert.equal(classifyMessage('{"jsonrpc":"2.0","id":1,"method":"m"}').kind, "request");
    assert.equal(classifyMessage({ jsonrpc: "2.0", id: "x", method: "m", params: {} }).kind, "request");
    assert.equal(classifyMessage({ jsonrpc: "2.0", method: "m" }).kind, "notification");
    assert.equal(classifyMessage({ jsonrpc: "2.0", id: 1, result: {} }).kind, "response");
    assert.equal(classifyMessage({ jsonrpc: "2.0", id: 1, error: { code: 1, message: "x" } }).kind, "response");
  });

  it("malformed JSON is a parse error (-32700) with a null id", () => {
    assert.deepEqual(classifyMessage("{not json"), {
      kind: "invalid",
      id: null,
      error: { code: -32700, message: "Parse error: the message is not valid JSON" },
    });
  });

  it("a well-formed but invalid message is an invalid request (-32600), keeping a usable id", () => {
    const cases: Array<[unknown, unknown]> = [
      ["[]", null],
      ["42", null],
      [{ id: 3, method: "m" }, 3],
      [{ jsonrpc: "2.0", id: 4, method: 7 }, 4],
      [{ jsonrpc: "2.0", id: 5, method: "m", params: "p" }, 5],
      [{ jsonrpc: "2.0", id: true, method: "m" }, null],
      [{ jsonrpc: "2.0", id: 6 }, 6],
    ];
    for (const [input, id] of cases) {
      const classified = classifyMessage(input);
      assert.equal(classified.kind, "invalid", JSON.stringify(input));
      if (classified.kind === "invalid") assert.deepEqual([classified.id, classified.error.code], [id, -32600]);
    }
  });

  it("parseMessage returns the message or throws the JSON-RPC error", () => {
    assert.deepEqual(parseMessage('{"jsonrpc":"2.0","method":"m"}'), { jsonrpc: "2.0", method: "m" });
    assert.throws(
      () => parseMessage("nope"),
      (error: { code?: number }) => error.code === -32700,
    );
  });
});

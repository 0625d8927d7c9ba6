import assert from "node:assert/strict";
import { test } from "node:test";
import { deriveShapes } from "../../../cli/generate/ir-shapes.js";
import type { MapsIR } from "../../../cli/generate/ir-model.js";
import type { JsonObject } from "../../../cli/generate/normalize.js";

const ref = (name: string) => ({ $ref: `#/$defs/${name}` });

function shapesOf(defs: Record<string, unknown>, maps: Partial<MapsIR>) {
  const all: MapsIR = {
    revision: "r",
    clientRequests: [],
    serverRequests: [],
    clientNotifications: [],
    serverNotifications: [],
    subscriptionKinds: null,
    streamMethods: [],
    errorCodes: [],
    metaKeys: [],
    extensions: [],
    ...maps,
  };
  return deriveShapes(new Map(Object.entries(defs) as Array<[string, JsonObject]>), all);
}

const DEFS = {
  Result: { type: "object", properties: { _meta: { type: "object", additionalProperties: {} } }, additionalProperties: {} },
  TextContent: { type: "object", properties: { type: { const: "text" }, text: { type: "string" } } },
  ImageContent: { type: "object", properties: { type: { const: "image" }, data: { type: "string" } } },
  Node: { type: "object", properties: { child: ref("Node"), label: { type: "string" } } },
  CallToolResult: {
    allOf: [ref("Result")],
    properties: { content: { type: "array", items: { anyOf: [ref("TextContent"), ref("ImageContent")] } }, tree: ref("Node") },
  },
  Schema: { type: "object", properties: { type: { const: "object" } }, additionalProperties: {} },
};

test("a result's shape: its keys (allOf merged, open if a part is), items, unions told apart by their type constant, recursion by name", () => {
  const shapes = shapesOf(DEFS, {
    clientRequests: [{ method: "tools/call", requestType: "CallToolRequest", params: { kind: "none" }, resultType: "CallToolResult" }],
  });
  assert.deepEqual(shapes.results, [{ method: "tools/call", shape: "CallToolResult" }]);
  const named = Object.fromEntries(shapes.named.map(({ name, shape }) => [name, shape]));
  assert.deepEqual(named.CallToolResult, {
    keys: { _meta: true, content: { items: { byType: { text: "TextContent", image: "ImageContent" } } }, tree: "Node" },
    open: true,
  });
  assert.deepEqual(named.Node, { keys: { child: "Node", label: true } });
  assert.deepEqual(named.TextContent, { keys: { type: true, text: true } });
});

test("an object is closed to its properties unless additionalProperties opens it; a free-form object is anything", () => {
  const shapes = shapesOf(DEFS, { serverNotifications: [{ method: "n", type: "N" }] });
  assert.deepEqual(shapes.serverNotifications, [{ method: "n", shape: true }], "a notification without params is anything");
  const open = shapesOf(
    { ...DEFS, R: { type: "object", properties: { schema: ref("Schema"), free: { type: "object" } } } },
    {
      clientRequests: [{ method: "m", requestType: "MRequest", params: { kind: "none" }, resultType: "R" }],
    },
  );
  const named = Object.fromEntries(open.named.map(({ name, shape }) => [name, shape]));
  assert.deepEqual(named.R, { keys: { schema: "Schema", free: true } });
  assert.deepEqual(named.Schema, { keys: { type: true }, open: true });
});

test("the params keys a const fixes in every member that has them are a request's form tags", () => {
  const defs = {
    ...DEFS,
    FormParams: { type: "object", properties: { mode: { const: "form" }, message: { type: "string" } } },
    UrlParams: { type: "object", properties: { mode: { const: "url" }, url: { type: "string" } } },
    AskRequest: { type: "object", properties: { method: { const: "ask" }, params: { anyOf: [ref("FormParams"), ref("UrlParams")] } } },
  };
  const shapes = shapesOf(defs, {
    serverRequests: [{ method: "ask", requestType: "AskRequest", params: { kind: "inline", required: true }, resultType: "Result" }],
  });
  assert.deepEqual(shapes.serverRequestTags, [{ method: "ask", keys: ["mode"] }]);
  assert.deepEqual(shapes.serverRequests, [{ method: "ask", shape: { keys: { mode: true, message: true, url: true } } }]);
});

test("an object's required keys: its own that it defines, every part's under allOf, only those all members share under anyOf", () => {
  const defs = {
    Result: { type: "object", properties: { _meta: { type: "object" }, resultType: { type: "string" } }, required: ["resultType"] },
    Text: { type: "object", properties: { uri: { type: "string" }, text: { type: "string" } }, required: ["uri", "text"] },
    Blob: { type: "object", properties: { uri: { type: "string" }, blob: { type: "string" } }, required: ["blob", "uri"] },
    ReadResult: {
      allOf: [ref("Result")],
      properties: { contents: { type: "array", items: { anyOf: [ref("Text"), ref("Blob")] } }, ttl: { type: "number" } },
      required: ["contents", "undefinedKey"],
    },
  };
  const shapes = shapesOf(defs, {
    clientRequests: [{ method: "resources/read", requestType: "ReadRequest", params: { kind: "none" }, resultType: "ReadResult" }],
  });
  const named = Object.fromEntries(shapes.named.map(({ name, shape }) => [name, shape]));
  assert.deepEqual(named.ReadResult, {
    keys: { _meta: true, resultType: true, contents: { items: { keys: { uri: true, text: true, blob: true }, required: ["uri"] } }, ttl: true },
    required: ["contents", "resultType"],
  });
  assert.deepEqual(named.Text, { keys: { uri: true, text: true }, required: ["text", "uri"] });
});

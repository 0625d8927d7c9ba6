import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { normalizeSchema, repairLinks } from "../../../cli/generate/normalize.js";
import { commentText } from "../../../cli/toolbox/escape.js";
import { tinySchemaText } from "./helpers.js";

const names = ["CallToolResult", "SubscriptionsListenRequest", "SubscriptionsListenResult", "MetaObject", "Tool", "ToolListChangedNotification"];

test("a link whose label ran into its target is split at the longest definition name", () => {
  assert.equal(
    repairLinks("a {@link SubscriptionsListenRequestsubscriptions/listen} stream", names),
    "a {@link SubscriptionsListenRequest | subscriptions/listen} stream",
  );
  assert.equal(
    repairLinks("{@link ToolListChangedNotificationnotifications/tools/list_changed}", names),
    "{@link ToolListChangedNotification | notifications/tools/list_changed}",
  );
  assert.equal(repairLinks("{@link MetaObject`_meta` key naming rules}", names), "{@link MetaObject | `_meta` key naming rules}");
});

test("plain links, member paths and links that already have a label are left alone", () => {
  for (const text of ["{@link Tool}", "{@link CallToolResult.content}", "{@link Tool | a tool}", "{@link Unknownthing}"]) {
    assert.equal(repairLinks(text, names), text);
  }
});

test("*/ inside a description cannot close the doc comment", () => {
  assert.equal(commentText("a */ b */"), "a *\\/ b *\\/");
});

describe("a hostile schema gets a one-line error naming the definition, never a crash or a silent loss", () => {
  const normalizeText = (text: string) => normalizeSchema({ json: JSON.parse(text), location: "hostile.json", isUrl: false, sha256: "x" });
  const refusal = (pattern: RegExp) => (error: Error) => {
    assert.ok(error instanceof CliError, `a CliError, not ${error.stack}`);
    assert.doesNotMatch(error.message, /\n/);
    assert.match(error.message, pattern);
    return true;
  };

  test("a $defs key that is an Object.prototype member (__proto__, hasOwnProperty) is refused by name", () => {
    for (const name of ["__proto__", "hasOwnProperty"]) {
      assert.throws(() => normalizeText(tinySchemaText({}, `${JSON.stringify(name)}: { "type": "string" }`)), refusal(new RegExp(`\\$defs\\.${name}`)));
    }
  });

  test("a property named __proto__ (required or not) is refused naming its definition, never dropped", () => {
    const raw = `"Holder": { "type": "object", "properties": { "__proto__": { "type": "string" } }, "required": ["__proto__"] }`;
    assert.throws(() => normalizeText(tinySchemaText({}, raw)), refusal(/\$defs\.Holder.*__proto__/));
  });

  test("nesting beyond the depth limit is refused naming the definition (300 and 500 levels)", () => {
    for (const depth of [300, 500]) {
      let deep: unknown = { type: "string" };
      for (let level = 0; level < depth; level++) deep = { type: "object", properties: { inner: deep } };
      assert.throws(() => normalizeText(tinySchemaText({ Deep: deep })), refusal(/\$defs\.Deep .*nested deeper than \d+ levels/));
    }
  });

  test("a cycle of definitions that are only references (A -> B -> A) is refused naming the cycle", () => {
    assert.throws(() => normalizeText(tinySchemaText({ A: { $ref: "#/$defs/B" }, B: { $ref: "#/$defs/A" } })), refusal(/A -> B -> A/));
    const throughUnion = { A: { anyOf: [{ $ref: "#/$defs/B" }, { type: "string" }] }, B: { allOf: [{ $ref: "#/$defs/A" }] } };
    assert.throws(() => normalizeText(tinySchemaText(throughUnion)), refusal(/A -> B -> A/));
  });

  test("a definition that refers to itself through a property is a valid recursive type, not a cycle", () => {
    const tree = { Tree: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Tree" } } } } };
    assert.ok(normalizeText(tinySchemaText(tree)).definitions.has("Tree"));
  });
});

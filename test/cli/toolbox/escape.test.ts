/**
 * toolbox/escape.ts, one context at a time: hostile strings (test/support/hostile-strings.ts)
 * put where the generators put them, then run as JavaScript in a fresh context. Each must
 * come back as exactly the text it was (a literal, a key) or vanish (a comment), and none
 * may set the marker global.
 */
import assert from "node:assert/strict";
import { runInNewContext } from "node:vm";
import { test } from "node:test";
import {
  commentText,
  isTypeName,
  lineCommentText,
  propertyKey,
  stringLiteral,
  terminalText,
  TypeNames,
  typeNameOf,
  valueLiteral,
} from "../../../cli/toolbox/escape.js";
import { HOSTILE_PIECES, hostileStrings, MARKER } from "../../support/hostile-strings.js";

const STRINGS = [...HOSTILE_PIECES, ...hostileStrings(1, 200)];

/** Runs `code` in a fresh context: its value, and what it left in the marker global. */
function run(code: string): { value: unknown; marker: unknown } {
  const context: Record<string, unknown> = {};
  const value = runInNewContext(code, context);
  return { value, marker: context[MARKER] };
}

test("a string literal holds the text exactly and ends nowhere early", () => {
  for (const text of STRINGS) {
    const literal = stringLiteral(text);
    assert.deepEqual(run(`(${literal})`), { value: text, marker: undefined }, literal);
    assert.doesNotMatch(literal, /[\u2028\u2029]|<\//, literal);
  }
});

test("a property key names exactly that own property, __proto__ included, and sets no prototype", () => {
  for (const text of STRINGS) {
    const { value, marker } = run(`({ ${propertyKey(text)}: 1 })`);
    const object = value as object;
    assert.equal(marker, undefined);
    assert.deepEqual(Object.getOwnPropertyNames(object), [text], text);
    assert.equal(Object.getPrototypeOf(Object.getPrototypeOf(object)), null, "the prototype is Object.prototype");
  }
  assert.equal(propertyKey("__proto__"), '["__proto__"]');
  assert.equal(propertyKey("tools/list"), '"tools/list"');
  assert.equal(propertyKey("plain"), "plain");
});

test("a value literal rebuilds the JSON value, keys and strings escaped", () => {
  const value = Object.fromEntries(STRINGS.slice(0, 40).map((text, index) => [text, index % 2 === 0 ? [text, index, null, true] : { [text]: text }]));
  const rebuilt = run(`(${valueLiteral(value)})`);
  assert.equal(rebuilt.marker, undefined);
  assert.deepEqual(JSON.parse(JSON.stringify(rebuilt.value)), JSON.parse(JSON.stringify(value)));
});

test("comment text, on one line or many, stays inside its comment", () => {
  for (const text of STRINGS) {
    assert.deepEqual(run(`/** ${lineCommentText(text)} */ 1`), { value: 1, marker: undefined }, text);
    assert.deepEqual(run(`// ${lineCommentText(text)}\n2`), { value: 2, marker: undefined }, text);
    const lines = commentText(text)
      .split("\n")
      .map((line) => ` * ${line}`);
    assert.deepEqual(run(`/**\n${lines.join("\n")}\n */ 3`), { value: 3, marker: undefined }, text);
    assert.doesNotMatch(lineCommentText(text), /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
  }
});

test("type names are identifiers json-schema-to-typescript keeps as they are, and handed out once", () => {
  for (const text of STRINGS) assert.ok(isTypeName(typeNameOf(text, "Tool")), `${JSON.stringify(text)} -> ${typeNameOf(text, "Tool")}`);
  assert.equal(typeNameOf("3d_render", "Tool"), "Tool3DRender");
  assert.equal(typeNameOf("class", "Tool"), "Class");
  const names = new TypeNames(["Tools"]);
  assert.deepEqual([names.claim("Tools"), names.claim("Tool3DRender"), names.claim("Tool3DRender")], ["Tools2", "Tool3DRender", "Tool3DRender2"]);
  for (const bad of ["3D", "foo", "A_b", "Tool3d", "A b", "default"]) assert.equal(isTypeName(bad), false, bad);
});

test("terminal text has every control character and direction override written out", () => {
  for (const text of STRINGS) assert.doesNotMatch(terminalText(text), /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/, text);
  assert.equal(terminalText("a\u001b[31mb"), "a\\u001b[31mb");
});

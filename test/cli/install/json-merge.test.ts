/**
 * install/json-merge.ts: one server entry spliced into a client's JSON or JSONC file. The
 * rest of the file must come out byte for byte; the tests compare whole texts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { mergeJsonEntry } from "../../../cli/install/json-merge.js";
import { JsonSyntaxError, MAX_JSON_DEPTH, parseJson, plainValue, type JsonDialect } from "../../../cli/install/jsonc.js";

const JSONC: JsonDialect = { comments: true, trailingCommas: true };
const PLAIN: JsonDialect = { comments: false, trailingCommas: false };
const COMMENTS_ONLY: JsonDialect = { comments: true, trailingCommas: false };
const ENTRY = { command: "node", args: ["/srv/app/dist/src/main.js"] };

test("an entry is added after the other servers, and the rest of a JSONC file is kept byte for byte", () => {
  const before = [
    "{",
    "  // my servers, do not reorder",
    '  "servers": {',
    '    "other": { "type": "http", "url": "http://example.test/mcp" }, // the team one',
    "  },",
    '  "inputs": [],',
    "}",
    "",
  ].join("\n");
  const merged = mergeJsonEntry(before, JSONC, ["servers"], "app", { type: "stdio", ...ENTRY });
  assert.equal(merged.change, "added");
  assert.equal(
    merged.text,
    [
      "{",
      "  // my servers, do not reorder",
      '  "servers": {',
      '    "other": { "type": "http", "url": "http://example.test/mcp" }, // the team one',
      '    "app": {',
      '      "type": "stdio",',
      '      "command": "node",',
      '      "args": ["/srv/app/dist/src/main.js"]',
      "    }",
      "  },",
      '  "inputs": [],',
      "}",
      "",
    ].join("\n"),
  );
});

test("a comma is added after the last server when it had none, and a comment after it stays on its line", () => {
  const before = '{\n\t"mcpServers": {\n\t\t"other": {"command": "x"} /* keep */\n\t}\n}';
  const merged = mergeJsonEntry(before, COMMENTS_ONLY, ["mcpServers"], "app", ENTRY);
  assert.equal(
    merged.text,
    '{\n\t"mcpServers": {\n\t\t"other": {"command": "x"}, /* keep */\n\t\t"app": {\n\t\t\t"command": "node",\n\t\t\t"args": ["/srv/app/dist/src/main.js"]\n\t\t}\n\t}\n}',
  );
  assert.deepEqual(plainValue(parseJson(merged.text, COMMENTS_ONLY)), { mcpServers: { other: { command: "x" }, app: ENTRY } });
});

test("a second merge of the same entry changes nothing, whatever the order of its keys in the file", () => {
  const first = mergeJsonEntry('{ "theme": "dark" }\n', PLAIN, ["mcpServers"], "app", ENTRY);
  assert.equal(first.change, "added");
  assert.deepEqual(mergeJsonEntry(first.text, PLAIN, ["mcpServers"], "app", ENTRY), { text: first.text, change: "unchanged" });
  const reordered = '{"mcpServers": {"app": {"args": ["/srv/app/dist/src/main.js"], "command": "node"}}}';
  assert.deepEqual(mergeJsonEntry(reordered, PLAIN, ["mcpServers"], "app", ENTRY), { text: reordered, change: "unchanged" });
});

test("an entry that differs is replaced where it stands, its neighbours kept", () => {
  const before = '{\n  "mcpServers": {\n    "app": { "command": "old" },\n    "other": { "command": "x" }\n  },\n  "z": 1\n}\n';
  const merged = mergeJsonEntry(before, PLAIN, ["mcpServers"], "app", { url: "http://127.0.0.1:3000/mcp" });
  assert.equal(merged.change, "replaced");
  assert.equal(merged.text, '{\n  "mcpServers": {\n    "app": {\n      "url": "http://127.0.0.1:3000/mcp"\n    },\n    "other": { "command": "x" }\n  },\n  "z": 1\n}\n');
});

test("a missing table is added at the end of the top object, nested where the path is deeper, in the file's line endings", () => {
  const before = '{\r\n  "numStartups": 3\r\n}\r\n';
  const merged = mergeJsonEntry(before, PLAIN, ["projects", "/srv/app", "mcpServers"], "app", { command: "node", args: [] });
  assert.equal(
    merged.text,
    '{\r\n  "numStartups": 3,\r\n  "projects": {\r\n    "/srv/app": {\r\n      "mcpServers": {\r\n        "app": {\r\n          "command": "node",\r\n          "args": []\r\n        }\r\n      }\r\n    }\r\n  }\r\n}\r\n',
  );
});

test("an empty or blank file becomes a file holding the entry alone", () => {
  for (const before of ["", "  \n"]) {
    assert.equal(mergeJsonEntry(before, PLAIN, ["mcpServers"], "app", { command: "node", args: ["a"] }).text, '{\n  "mcpServers": {\n    "app": {\n      "command": "node",\n      "args": ["a"]\n    }\n  }\n}\n');
  }
});

test("a file the client could not read is refused with where it stops being readable", () => {
  const refusals: Array<[string, JsonDialect, RegExp, number]> = [
    ['{\n  // a comment\n  "mcpServers": {}\n}', PLAIN, /a comment/, 4],
    ['{ "mcpServers": { "a": 1, } }', COMMENTS_ONLY, /trailing comma/, 26],
    ['{ "mcpServers": { "a": 1 }', JSONC, /expected ',' or '}'/, 26],
    ['{ "mcpServers": [] }', JSONC, /"mcpServers" is not an object/, 16],
    ["[]", JSONC, /no JSON object/, 0],
    ['{ "a": "\u0001" }', PLAIN, /control character/, 8],
  ];
  for (const [text, dialect, reason, offset] of refusals) {
    assert.throws(
      () => mergeJsonEntry(text, dialect, ["mcpServers"], "app", ENTRY),
      (error) => error instanceof JsonSyntaxError && reason.test(error.reason) && error.offset === offset,
      text,
    );
  }
});

test(`objects and arrays nested deeper than ${MAX_JSON_DEPTH} levels are refused before the reader recurses into them`, () => {
  const deep = `{"a": ${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}}`;
  assert.throws(() => parseJson(deep, PLAIN), (error) => error instanceof JsonSyntaxError && /nested deeper than 512 levels/.test(error.reason));
  assert.doesNotThrow(() => parseJson(`{"a": ${"[".repeat(MAX_JSON_DEPTH - 1)}${"]".repeat(MAX_JSON_DEPTH - 1)}}`, PLAIN));
});

test("the last of repeated keys is the one edited, as a client's JSON.parse keeps the last", () => {
  const before = '{"mcpServers": {}, "mcpServers": {\n  "other": {}\n}}';
  const merged = mergeJsonEntry(before, PLAIN, ["mcpServers"], "app", { command: "node" });
  assert.deepEqual((JSON.parse(merged.text) as { mcpServers: unknown }).mcpServers, { other: {}, app: { command: "node" } });
  assert.ok(merged.text.startsWith('{"mcpServers": {}, '));
});

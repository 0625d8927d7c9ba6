import assert from "node:assert/strict";
import { test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { withJsonValue, withoutJsonValue } from "../../../cli/toolbox/json-text.js";

const RUNTIME = "@mcp-gen/runtime";

/** A package.json laid out by hand: tabs, CRLF, members sharing lines, keys and braces inside strings, the same key nested elsewhere. */
const HAND_WRITTEN = [
  "{",
  '\t"name":"app" ,  "description": "says \\"dependencies\\": {\\"@mcp-gen/runtime\\": 1}, [braces] too",',
  '\t"dependencies" : {',
  `\t\t"zod":"^4.0.0",   "${RUNTIME}" :  "file:vendor/runtime.tgz"  ,`,
  '\t\t"jose": "^6.2.18"',
  "\t},",
  `\t"overrides": { "${RUNTIME}": "0.1.0" },`,
  '\t"mcp-gen": {"revisions": ["2026-07-28"]},',
  '\t"files": []',
  "}",
  "",
].join("\r\n");

test("removing a value keeps every other byte of the file, whatever its layout", () => {
  const edited = withoutJsonValue(HAND_WRITTEN, ["dependencies", RUNTIME], "package.json");
  assert.equal(edited, HAND_WRITTEN.replace(`"${RUNTIME}" :  "file:vendor/runtime.tgz"  ,\r\n\t\t`, ""));
  assert.deepEqual(Object.keys(JSON.parse(edited).dependencies), ["zod", "jose"]);
  assert.equal(JSON.parse(edited).overrides[RUNTIME], "0.1.0", "the same key in another object stays");
});

test("removing the last, the only, or a member on one line takes one comma with it", () => {
  const where = "package.json";
  assert.equal(withoutJsonValue('{\n  "a": 1,\n  "b": [2, {"c": 3}]\n}\n', ["b"], where), '{\n  "a": 1\n}\n');
  assert.equal(withoutJsonValue('{\n  "a": 1,\n  "d": {\n    "x": "y"\n  }\n}\n', ["d", "x"], where), '{\n  "a": 1,\n  "d": {}\n}\n');
  assert.equal(withoutJsonValue('{"a":1,"b":2,"c":3}', ["b"], where), '{"a":1,"c":3}');
  assert.equal(withoutJsonValue('{"a":1,"b":2,"c":3}', ["c"], where), '{"a":1,"b":2}');
});

test("removing a value that is not there leaves the text as it was", () => {
  const text = '{\n  "name": "app"\n}\n';
  assert.equal(withoutJsonValue(text, ["dependencies", RUNTIME], "package.json"), text);
  assert.equal(withoutJsonValue(text, ["version"], "package.json"), text);
});

test("replacing a value keeps every other byte, and writes the new one in the file's indentation and line endings", () => {
  const edited = withJsonValue(HAND_WRITTEN, ["mcp-gen"], { out: "generated", revisions: ["2025-11-25", "2026-07-28"] }, "package.json");
  const before = HAND_WRITTEN.slice(0, HAND_WRITTEN.indexOf('{"revisions"'));
  const after = HAND_WRITTEN.slice(HAND_WRITTEN.indexOf(',\r\n\t"files"'));
  assert.equal(edited, `${before}{\r\n\t\t"out": "generated",\r\n\t\t"revisions": ["2025-11-25", "2026-07-28"]\r\n\t}${after}`);
});

test("a value that is not there is added as the last member of its object", () => {
  const where = "package.json";
  assert.equal(withJsonValue('{\n    "name": "app"\n}\n', ["runtime"], "x", where), '{\n    "name": "app",\n    "runtime": "x"\n}\n');
  assert.equal(withJsonValue('{\n  "d": {}\n}\n', ["d", "k"], 1, where), '{\n  "d": {\n    "k": 1\n  }\n}\n');
  assert.equal(withJsonValue("{}", ["k"], [], where), '{\n  "k": []\n}');
});

test("what cannot be edited in place is refused in one line naming the file and the key", () => {
  const refused = (run: () => string, message: RegExp) =>
    assert.throws(run, (error: unknown) => error instanceof CliError && message.test(error.message) && !error.message.includes("\n"));
  refused(() => withoutJsonValue('{"a": 1,}', ["a"], "app/package.json"), /^app\/package\.json: cannot edit "a" in place: the file is not a JSON object$/);
  refused(() => withoutJsonValue("[1]", ["a"], "package.json"), /not a JSON object/);
  refused(() => withoutJsonValue('{"dependencies": {"x": "1", "x": "2"}}', ["dependencies", "x"], "package.json"), /"dependencies\.x" in place: its object repeats the key/);
  refused(() => withJsonValue('{"a": 1, "a": 2}', ["a", "b"], 3, "package.json"), /"a" in place: its object repeats the key/);
  refused(() => withoutJsonValue('{"dependencies": ["x"]}', ["dependencies", "x"], "package.json"), /"dependencies" in place: it is not an object/);
  refused(() => withJsonValue('{"a": 1}', ["b", "c"], 3, "package.json"), /"b\.c" in place: an object on the way to it is absent/);
});

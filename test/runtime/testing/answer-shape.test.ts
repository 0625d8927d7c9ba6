import assert from "node:assert/strict";
import { test } from "node:test";
import { answerProblems, shapedRevisions } from "../../../packages/runtime/src/testing/answer-shape.js";

const NEWEST = "2026-07-28";
const INITIALIZE_ERA = "2025-11-25";

test("an answer holding what its revision requires has no problems, at each era", () => {
  const text = [{ type: "text", text: "hi" }];
  assert.deepEqual(answerProblems(INITIALIZE_ERA, "tools/call", { content: text }), []);
  assert.deepEqual(answerProblems(NEWEST, "tools/call", { resultType: "complete", content: text }), []);
  const read = { contents: [{ uri: "about:me", text: "x" }] };
  assert.deepEqual(answerProblems(INITIALIZE_ERA, "resources/read", read), []);
});

test("a tool result without content is named, with the definition that requires it", () => {
  assert.deepEqual(answerProblems(INITIALIZE_ERA, "tools/call", { structuredContent: { n: 1 } }), ["result.content: missing, CallToolResult requires it"]);
});

test("a resource read whose contents lack a uri is named by its place in the list", () => {
  const problems = answerProblems(INITIALIZE_ERA, "resources/read", { contents: [{ uri: "a:1", text: "ok" }, { text: "no uri" }] });
  assert.equal(problems.length, 1, problems.join("\n"));
  assert.match(problems[0]!, /^result\.contents\[1\]\.uri: missing, \w+ requires it$/);
});

test("a content block of a type the revision lacks, a list where an object belongs, and a key required inside a block are named", () => {
  const problems = answerProblems(INITIALIZE_ERA, "tools/call", { content: [{ type: "video" }, { type: "image", data: "AA==" }] });
  assert.deepEqual(problems, [
    'result.content[0].type: "video" is none of ContentBlock\'s types (text, image, audio, resource_link, resource)',
    "result.content[1].mimeType: missing, ImageContent requires it",
  ]);
  assert.deepEqual(answerProblems(INITIALIZE_ERA, "tools/call", { content: {} }), ["result.content: not a list, CallToolResult has a list here"]);
  assert.deepEqual(answerProblems(INITIALIZE_ERA, "tools/call", []), ["result: not an object, CallToolResult has an object here"]);
});

test("each revision is checked by its own rules: the newest requires resultType, the initialize era does not", () => {
  const answer = { content: [{ type: "text", text: "hi" }] };
  assert.deepEqual(answerProblems(INITIALIZE_ERA, "tools/call", answer), []);
  assert.deepEqual(answerProblems(NEWEST, "tools/call", answer), ["result.resultType: missing, CallToolResult requires it"]);
});

test("a revision or a method the runtime has no shapes for is refused by name", () => {
  assert.ok(shapedRevisions().includes(NEWEST) && shapedRevisions().includes(INITIALIZE_ERA));
  assert.throws(() => answerProblems("1999-01-01", "tools/call", {}), /no shapes for revision 1999-01-01: this runtime has 2026-07-28, 2025-11-25/);
  assert.throws(() => answerProblems(INITIALIZE_ERA, "tools/fly", {}), /2025-11-25 has no request tools\/fly/);
});

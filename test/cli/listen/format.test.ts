import { test } from "node:test";
import assert from "node:assert/strict";
import { formatEvent } from "../../../cli/listen/format.js";

const ESC = "\u001b";

test("a server's strings reach the terminal with control characters escaped", () => {
  const printed = formatEvent({
    kind: "discovered",
    discovered: {
      supportedVersions: [`2026-07-28${ESC}[2J`],
      capabilities: { [`tools${ESC}]0;title\u0007`]: { [`listChanged\nforged line`]: true } },
      serverInfo: { name: `evil${ESC}[31m`, version: "1\r2" },
    },
  });
  const lines = printed.split("\n");
  assert.equal(lines.length, 2, "one line for the server, one for its one capability group: a newline it sent adds none");
  for (const line of lines) assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f]/, line);
  assert.match(lines[0]!, /^server: evil/);
  assert.match(lines[1]!, /^advertises: tools/);
});

test("a notification's method is escaped like everything else the server sends", () => {
  const printed = formatEvent({ kind: "notification", notification: { jsonrpc: "2.0", method: `x${ESC}[8m\u2028y`, params: { s: "\u009b" } } });
  assert.doesNotMatch(printed, /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
});

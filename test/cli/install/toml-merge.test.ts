/**
 * install/toml-merge.ts and toml.ts: one `[mcp_servers.<key>]` table spliced into Codex's
 * config.toml. The rest of the file must come out byte for byte; the tests compare whole texts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { mergeTomlEntry } from "../../../cli/install/toml-merge.js";
import { readToml, TomlSyntaxError } from "../../../cli/install/toml.js";

const STDIO = { command: "node", args: ["/srv/app/dist/src/main.js"] };
const CONFIG = [
  "# my Codex settings",
  'model = "o3"',
  "",
  "[mcp_servers.other]",
  'command = "npx"',
  "args = [",
  '  "-y", # pinned below',
  '  "other-server@1.2.3",',
  "]",
  "",
  "# profiles come last",
  "[profiles.fast]",
  'notes = """',
  "[mcp_servers.fake]",
  'not a header: it is inside a string"""',
  "when = 1979-05-27 07:32:00Z",
  "",
].join("\n");

test("a server table is added after the other [mcp_servers.*] tables, and the rest of the file is kept byte for byte", () => {
  const merged = mergeTomlEntry(CONFIG, "mcp_servers", "app", STDIO);
  assert.equal(merged.change, "added");
  const inserted = '\n\n[mcp_servers.app]\ncommand = "node"\nargs = ["/srv/app/dist/src/main.js"]';
  const at = CONFIG.indexOf("]\n\n# profiles") + 1;
  assert.equal(merged.text, CONFIG.slice(0, at) + inserted + CONFIG.slice(at));
});

test("a second merge of the same table changes nothing", () => {
  const once = mergeTomlEntry(CONFIG, "mcp_servers", "app", STDIO).text;
  assert.deepEqual(mergeTomlEntry(once, "mcp_servers", "app", STDIO), { text: once, change: "unchanged" });
});

test("a table that differs is replaced where it stands, its sub-tables with it, its neighbours kept", () => {
  const before = '[mcp_servers.app]\ncommand = "old"\n\n[mcp_servers.app.env]\nA = "1"\n\n[mcp_servers.next]\ncommand = "x"\n';
  const merged = mergeTomlEntry(before, "mcp_servers", "app", { url: "http://127.0.0.1:3000/mcp", http_headers: { Authorization: "Bearer t" } });
  assert.equal(merged.change, "replaced");
  assert.equal(merged.text, '[mcp_servers.app]\nurl = "http://127.0.0.1:3000/mcp"\nhttp_headers = { "Authorization" = "Bearer t" }\n\n[mcp_servers.next]\ncommand = "x"\n');
});

test("without any server table the new one goes at the end, after one blank line, in the file's line endings", () => {
  assert.equal(mergeTomlEntry('model = "o3"\r\n', "mcp_servers", "app", { command: "node", args: [] }).text, 'model = "o3"\r\n\r\n[mcp_servers.app]\r\ncommand = "node"\r\nargs = []\r\n');
  assert.equal(mergeTomlEntry("", "mcp_servers", "app", { command: "node", args: [] }).text, '[mcp_servers.app]\ncommand = "node"\nargs = []\n');
});

test("a key TOML cannot write bare is quoted, and found again quoted", () => {
  const once = mergeTomlEntry("", "mcp_servers", "my.server", STDIO).text;
  assert.ok(once.startsWith('[mcp_servers."my.server"]\n'), once);
  assert.equal(mergeTomlEntry(once, "mcp_servers", "my.server", STDIO).change, "unchanged");
  assert.equal(mergeTomlEntry("[mcp_servers.'my.server']\ncommand = 'x'\n", "mcp_servers", "my.server", STDIO).change, "replaced");
});

test("a file that is not TOML is refused with where it stops being readable", () => {
  const refusals: Array<[string, RegExp, number]> = [
    ['name = "open\n', /not closed on its line/, 7],
    ["just words\n", /expected '='/, 5],
    ['notes = """never closed\n', /multi-line string is not closed/, 8],
    ["[mcp_servers.app\n", /expected '\]'/, 16],
    ["a = 1 2\n", /end of the line/, 6],
    ["a = nope\n", /"nope" is not a TOML value/, 4],
    ["a = [1, 2\n", /expected ',' or '\]'/, 10],
  ];
  for (const [text, reason, offset] of refusals) {
    assert.throws(
      () => mergeTomlEntry(text, "mcp_servers", "app", STDIO),
      (error) => error instanceof TomlSyntaxError && reason.test(error.reason) && error.offset === offset,
      text,
    );
  }
});

test("a server written in a form a new table would break is refused, naming it", () => {
  for (const text of ['mcp_servers = { app = { command = "x" } }\n', '[mcp_servers]\napp = { command = "x" }\n', 'mcp_servers.app.command = "x"\n', "[[mcp_servers]]\n"]) {
    assert.throws(
      () => mergeTomlEntry(text, "mcp_servers", "app", STDIO),
      (error) => error instanceof TomlSyntaxError && /is written in a form install does not edit/.test(error.reason),
      text,
    );
  }
});

test("the reader gives each statement its full key path", () => {
  const paths = readToml(CONFIG).map((statement) => `${statement.kind} ${statement.path.join(".")}`);
  assert.deepEqual(paths, [
    "pair model",
    "table mcp_servers.other",
    "pair mcp_servers.other.command",
    "pair mcp_servers.other.args",
    "table profiles.fast",
    "pair profiles.fast.notes",
    "pair profiles.fast.when",
  ]);
});

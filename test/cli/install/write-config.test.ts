/**
 * install/write-config.ts on real files in a temp folder: a backup before any change, no
 * write at all when nothing changes, a file it cannot read left exactly as it was.
 */
import assert from "node:assert/strict";
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { clientNamed } from "../../../cli/install/clients.js";
import { BACKUP_SUFFIX, MAX_CONFIG_BYTES, writeConfigEntry } from "../../../cli/install/write-config.js";
import { tempFolder } from "../scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => {
  temp = tempFolder("mcp-gen-install-write");
});
afterEach(() => temp.remove());

const CURSOR = clientNamed("cursor").format;
const ENTRY = { command: "node", args: ["/srv/app/dist/src/main.js"] };

test("the file as it was is kept beside it as a backup before the entry is written, with the file's permissions", () => {
  const file = join(temp.dir, "mcp.json");
  const before = '{\n  "mcpServers": {\n    "other": { "command": "x" }\n  }\n}\n';
  writeFileSync(file, before);
  chmodSync(file, 0o600);
  const outcome = writeConfigEntry({ file, table: ["mcpServers"] }, CURSOR, "app", ENTRY);
  assert.deepEqual(outcome, { file, change: "added", backup: `${file}${BACKUP_SUFFIX}` });
  assert.equal(readFileSync(`${file}${BACKUP_SUFFIX}`, "utf8"), before);
  assert.deepEqual((JSON.parse(readFileSync(file, "utf8")) as { mcpServers: unknown }).mcpServers, { other: { command: "x" }, app: ENTRY });
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(`${file}${BACKUP_SUFFIX}`).mode & 0o777, 0o600);
});

test("a second run with the same entry writes nothing: no backup, the file untouched", () => {
  const file = join(temp.dir, "mcp.json");
  writeConfigEntry({ file, table: ["mcpServers"] }, CURSOR, "app", ENTRY);
  const written = statSync(file);
  assert.equal(existsSync(`${file}${BACKUP_SUFFIX}`), false, "a new file has no backup");
  assert.deepEqual(writeConfigEntry({ file, table: ["mcpServers"] }, CURSOR, "app", ENTRY), { file, change: "unchanged" });
  assert.equal(statSync(file).ino, written.ino, "not replaced");
  assert.deepEqual(readdirSync(temp.dir), ["mcp.json"]);
});

test("a file that cannot be read as the client's format is refused in one line naming it, and left as it was", () => {
  const file = join(temp.dir, "claude_desktop_config.json");
  const broken = '{\n  "mcpServers": {\n    "other": { "command": "x" },\n  }\n}\n';
  writeFileSync(file, broken);
  assert.throws(
    () => writeConfigEntry({ file, table: ["mcpServers"] }, clientNamed("claude-desktop").format, "app", ENTRY),
    (error) =>
      error instanceof CliError &&
      error.message === `cannot read ${file}: a trailing comma (this client does not read them) at line 4, column 3; nothing was changed` &&
      !error.message.includes("\n"),
  );
  assert.equal(readFileSync(file, "utf8"), broken);
  assert.deepEqual(readdirSync(temp.dir), ["claude_desktop_config.json"]);
});

test("a file that is not UTF-8 is refused rather than written back with its bytes replaced", () => {
  const file = join(temp.dir, "settings.json");
  const bytes = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]);
  writeFileSync(file, bytes);
  assert.throws(() => writeConfigEntry({ file, table: ["mcpServers"] }, CURSOR, "app", ENTRY), /it is not UTF-8 text; nothing was changed/);
  assert.deepEqual(readFileSync(file), bytes);
});

test("a configuration kept behind a link is written through the link, which stays a link", () => {
  const dotfiles = join(temp.dir, "dotfiles");
  mkdirSync(dotfiles);
  writeFileSync(join(dotfiles, "config.toml"), 'model = "o3"\n');
  const link = join(temp.dir, "config.toml");
  symlinkSync(join(dotfiles, "config.toml"), link);
  const outcome = writeConfigEntry({ file: link, table: ["mcp_servers"] }, clientNamed("codex").format, "app", ENTRY);
  assert.equal(outcome.file, join(dotfiles, "config.toml"));
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.equal(readFileSync(link, "utf8"), 'model = "o3"\n\n[mcp_servers.app]\ncommand = "node"\nargs = ["/srv/app/dist/src/main.js"]\n');
});

test("a file in a folder that does not exist yet is created with its folders", () => {
  const file = join(temp.dir, "home", ".gemini", "settings.json");
  assert.equal(writeConfigEntry({ file, table: ["mcpServers"] }, clientNamed("gemini").format, "app", ENTRY).change, "added");
  assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), { mcpServers: { app: ENTRY } });
});

test(`a configuration file larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB is refused before it is read`, () => {
  const file = join(temp.dir, ".claude.json");
  writeFileSync(file, "");
  // Sparse: the size is what is checked, and no disk is spent on it.
  truncateSync(file, MAX_CONFIG_BYTES + 1);
  assert.throws(() => writeConfigEntry({ file, table: ["mcpServers"] }, clientNamed("claude-code").format, "app", ENTRY), /is larger than 64 MiB; nothing was changed/);
  assert.equal(statSync(file).size, MAX_CONFIG_BYTES + 1);
  assert.deepEqual(readdirSync(temp.dir), [".claude.json"]);
});

/**
 * The bundle's zip writer, read back by real readers (Info-ZIP's unzip and Python's
 * zipfile): every entry lists, tests and extracts to the bytes written, deflated or stored,
 * with its mode; names that would land outside the folder and archives past the format's
 * bounds are refused with nothing left behind.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { writeZip, ZIP_LIMITS, type ZipEntry } from "../../../../../cli/ship/bundle/zip.js";
import { tempFolder } from "../../../../cli/scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;

before(() => {
  temp = tempFolder("mcp-gen-zip");
});
after(() => temp?.remove());

const run = (command: string, args: string[], cwd = temp.dir) => spawnSync(command, args, { cwd, encoding: "utf8", timeout: 30_000 });

/** Text that deflates well, bytes that do not (stored), an empty file, a UTF-8 name, an executable from disk. */
function sampleEntries(): ZipEntry[] {
  const script = join(temp.dir, "script.sh");
  writeFileSync(script, "#!/bin/sh\necho hello\n");
  return [
    { name: "manifest.json", source: { data: Buffer.from(JSON.stringify({ name: "x" }).repeat(200)) }, mode: 0o644 },
    { name: "dist/src/random.bin", source: { data: randomBytes(70_000) }, mode: 0o644 },
    { name: "dist/empty.txt", source: { data: Buffer.alloc(0) }, mode: 0o644 },
    { name: "node_modules/été/index.js", source: { data: Buffer.from("export default 1;\n") }, mode: 0o644 },
    { name: "bin/script.sh", source: { path: script }, mode: 0o755 },
  ];
}

test("a zip it writes is listed, tested and extracted by unzip and Python's zipfile to the same bytes and modes", () => {
  const entries = sampleEntries();
  const archive = join(temp.dir, "sample.zip");
  const written = writeZip(archive, entries);
  assert.equal(written.entries, entries.length);
  assert.equal(written.bytes, statSync(archive).size);

  const tested = run("unzip", ["-t", archive]);
  assert.equal(tested.status, 0, tested.stdout + tested.stderr);
  assert.match(tested.stdout, /No errors detected/);
  const python = run("python3", ["-m", "zipfile", "-t", archive]);
  assert.equal(python.status, 0, python.stdout + python.stderr);
  const listed = run("python3", ["-c", "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", archive]);
  assert.deepEqual(listed.stdout.trim().split("\n"), entries.map((entry) => entry.name));
  const methods = run("python3", ["-c", "import sys, zipfile; print(' '.join(str(i.compress_type) for i in zipfile.ZipFile(sys.argv[1]).infolist()))", archive]);
  assert.equal(methods.stdout.trim(), "8 0 0 0 0", "repetitive text deflated; random bytes, the empty file and short files, which deflating would grow, stored");

  const out = join(temp.dir, "out");
  mkdirSync(out);
  const extracted = run("unzip", ["-q", archive, "-d", out]);
  assert.equal(extracted.status, 0, extracted.stdout + extracted.stderr);
  for (const entry of entries) {
    const expected = "data" in entry.source ? entry.source.data : readFileSync(entry.source.path);
    assert.deepEqual(readFileSync(join(out, entry.name)), expected, entry.name);
  }
  assert.equal(statSync(join(out, "bin", "script.sh")).mode & 0o777, 0o755);
  assert.equal(statSync(join(out, "manifest.json")).mode & 0o777, 0o644);
});

test("the same entries make the same bytes: no time or order taken from the machine", () => {
  const entries = sampleEntries();
  writeZip(join(temp.dir, "first.zip"), entries);
  writeZip(join(temp.dir, "second.zip"), entries);
  assert.deepEqual(readFileSync(join(temp.dir, "first.zip")), readFileSync(join(temp.dir, "second.zip")));
});

test("a name that is not a plain relative path, or given twice, is refused and no file is left", () => {
  const data = { data: Buffer.from("x") };
  for (const name of ["../escape.js", "/abs.js", "a/./b.js", "a//b.js", "a\\b.js", ""]) {
    const archive = join(temp.dir, "refused.zip");
    assert.throws(() => writeZip(archive, [{ name, source: data, mode: 0o644 }]), /not a plain relative path/, name);
    assert.equal(existsSync(archive) || existsSync(`${archive}.partial`), false, name);
  }
  assert.throws(
    () => writeZip(join(temp.dir, "twice.zip"), [{ name: "a.js", source: data, mode: 0o644 }, { name: "a.js", source: data, mode: 0o644 }]),
    /given twice/,
  );
});

test("a zip holds at most 65535 entries: more is refused before anything is written", () => {
  const entry = { name: "a", source: { data: Buffer.alloc(0) }, mode: 0o644 };
  const archive = join(temp.dir, "many.zip");
  assert.throws(() => writeZip(archive, Array.from({ length: ZIP_LIMITS.maxEntries + 1 }, () => entry)), /at most 65535/);
  assert.equal(existsSync(archive), false);
});

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { LOCK_FILE, withFolderLock } from "../../../cli/toolbox/lock.js";
import { tempFolder } from "../scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("mcp-gen-lock")));
afterEach(() => temp.remove());

test("edits of one folder take turns, and the lock is gone afterwards", async () => {
  const order: string[] = [];
  let releaseFirst!: () => void;
  const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
  const first = withFolderLock(temp.dir, async () => {
    order.push("first starts");
    await firstHeld;
    order.push("first ends");
  });
  const second = withFolderLock(temp.dir, async () => {
    order.push("second starts");
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(order, ["first starts"], "the second waits while the first holds the lock");
  releaseFirst();
  await Promise.all([first, second]);
  assert.deepEqual(order, ["first starts", "first ends", "second starts"]);
  assert.deepEqual(readdirSync(temp.dir), []);
});

test("a lock left by a process that is gone is taken over", async () => {
  const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  writeFileSync(join(temp.dir, LOCK_FILE), `${gone.stdout} ${hostname()} ${Date.now()}`);
  const answer = await withFolderLock(temp.dir, async () => "ran", { waitMs: 5_000 });
  assert.equal(answer, "ran");
  assert.deepEqual(readdirSync(temp.dir), []);
});

test("a live lock that outlasts the wait is a one-line error naming the lock file", async () => {
  writeFileSync(join(temp.dir, LOCK_FILE), `${process.pid} ${hostname()} ${Date.now()}`);
  let ran = false;
  await assert.rejects(
    withFolderLock(temp.dir, async () => (ran = true), { waitMs: 200 }),
    (error: unknown) => error instanceof CliError && /another mcp-gen run \(pid \d+\) is editing/.test(error.message) && error.hint!.includes(LOCK_FILE),
  );
  assert.equal(ran, false);
  assert.ok(existsSync(join(temp.dir, LOCK_FILE)), "someone else's lock is left alone");
});

test("the lock is released when the edit fails", async () => {
  await assert.rejects(
    withFolderLock(temp.dir, async () => Promise.reject(new Error("boom"))),
    /boom/,
  );
  assert.deepEqual(readdirSync(temp.dir), []);
});

test("each run holding the lock in turn gets the whole wait", async () => {
  const lock = join(temp.dir, LOCK_FILE);
  writeFileSync(lock, `${process.pid} ${hostname()} 1`);
  setTimeout(() => writeFileSync(lock, `${process.pid} ${hostname()} 2`), 300);
  setTimeout(() => rmSync(lock), 600);
  assert.equal(await withFolderLock(temp.dir, async () => "ran", { waitMs: 450 }), "ran");
});

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { waitForStdout } from "./child-output.js";

function node(script: string) {
  return spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "ignore"] });
}

test("waitForStdout resolves with the match once the line arrives, across chunks", async () => {
  const child = node(`process.stdout.write("list"); setTimeout(() => console.log("ening http://x/mcp"), 50); setTimeout(() => {}, 5000)`);
  const [, url] = await waitForStdout(child, /listening (\S+)/, 10_000);
  assert.equal(url, "http://x/mcp");
  child.kill();
});

test("waitForStdout rejects, naming the exit, when the child exits before printing", async () => {
  const child = node(`process.exit(3)`);
  await assert.rejects(
    waitForStdout(child, /listening/, 10_000, () => ": detail"),
    /exited with 3 before printing \/listening\/: detail/,
  );
});

test("waitForStdout rejects after its time limit when nothing matches", async () => {
  const child = node(`console.log("something else"); setTimeout(() => {}, 5000)`);
  await assert.rejects(waitForStdout(child, /listening/, 200), /printed no \/listening\/ within 200 ms/);
  child.kill();
});

import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { ChildProcess } from "node:child_process";
import { StdioClientTransport } from "../../../templates/runtime/index.js";
import { Peer, SUBSCRIPTION_ID } from "../../support/runtime-peer.js";
import { repoRoot } from "../../support/schemas.js";

const FIXTURE = join(repoRoot, "test", "runtime", "fixtures", "stdio-server.ts");
const ACK = "notifications/subscriptions/acknowledged";
const T = { timeout: 60_000 };

function spawnFixture() {
  return new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", FIXTURE],
    cwd: repoRoot,
    stderr: "pipe",
  });
}

function collectStderr(child: ChildProcess): { text: string } {
  const out = { text: "" };
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (out.text += chunk));
  return out;
}

describe("stdio transport (a server in a child process)", () => {
  it("several subscriptions on one stdio channel are told apart by id, each getting only what it asked for", T, async () => {
    const transport = spawnFixture();
    const peer = new Peer(transport);
    await transport.connect();
    try {
      peer.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, "tools-sub");
      peer.send("subscriptions/listen", { notifications: { promptsListChanged: true } }, "prompts-sub");
      await peer.waitFor((m) => m.method === ACK && m.params._meta[SUBSCRIPTION_ID] === "tools-sub", "ack 1");
      await peer.waitFor((m) => m.method === ACK && m.params._meta[SUBSCRIPTION_ID] === "prompts-sub", "ack 2");
      await peer.request("tools/call", { name: "fire", arguments: { topic: "tools" } });
      await peer.request("tools/call", { name: "fire", arguments: { topic: "prompts" } });
      await peer.sync();
      assert.deepEqual(
        peer.stream("tools-sub").map((m) => m.method),
        [ACK, "notifications/tools/list_changed"],
      );
      assert.deepEqual(
        peer.stream("prompts-sub").map((m) => m.method),
        [ACK, "notifications/prompts/list_changed"],
      );
    } finally {
      await transport.close();
    }
  });

  it("notifications/cancelled naming a listen request tears it down: handleClose once, nothing more for that id", T, async () => {
    const transport = spawnFixture();
    const peer = new Peer(transport);
    await transport.connect();
    try {
      peer.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, 41);
      await peer.waitFor((m) => m.method === ACK, "the ack");
      peer.notify("notifications/cancelled", { requestId: 41 });
      await peer.request("tools/call", { name: "fire", arguments: { topic: "tools" } });
      const stats = JSON.parse((await peer.request("tools/call", { name: "stats", arguments: {} })).result.content[0].text);
      assert.deepEqual(stats.closes, { 41: 1 });
      assert.deepEqual(
        peer.stream(41).map((m) => m.method),
        [ACK],
      );
    } finally {
      await transport.close();
    }
  });

  it("stdin EOF closes everything: every stream gets handleClose once and the process exits", T, async () => {
    const transport = spawnFixture();
    const peer = new Peer(transport);
    await transport.connect();
    const stderr = collectStderr(transport.child!);
    const exited = new Promise<number | null>((resolve) => transport.child!.once("exit", (code) => resolve(code)));
    peer.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, "a");
    peer.send("subscriptions/listen", { notifications: { promptsListChanged: true } }, "b");
    await peer.waitFor((m) => m.method === ACK && m.params._meta[SUBSCRIPTION_ID] === "b", "the second ack");
    transport.child!.stdin!.end(); // EOF, and nothing else
    assert.equal(await exited, 0);
    const lines = stderr.text
      .split("\n")
      .filter((line) => line.startsWith("handleClose"))
      .sort();
    assert.deepEqual(lines, ["handleClose a", "handleClose b"]);
    await transport.close();
  });
});

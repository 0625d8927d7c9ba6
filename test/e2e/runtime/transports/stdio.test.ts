import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as OfficialStdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { StdioClientTransport } from "../../../../packages/runtime/src/transports/index.js";
import { Peer, REQUEST_META, SUBSCRIPTION_ID } from "../../../support/runtime-peer.js";
import { repoRoot } from "../../../support/schemas.js";

const FIXTURE = join(repoRoot, "test", "runtime", "fixtures", "stdio-server.ts");
const CONSOLE_FIXTURE = join(repoRoot, "test", "runtime", "fixtures", "stdio-console-server.ts");
/** What the console fixture's tool writes, one per console method that prints to stdout. */
const TOOL_LOGS = ["log from the tool", "info from the tool", "debug from the tool", "dir: 'from the tool'", "'from the tool'", "count from the tool: 1", "group from the tool"];
const ACK = "notifications/subscriptions/acknowledged";
const T = { timeout: 60_000 };

function spawnFixture(env: NodeJS.ProcessEnv = {}) {
  return new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", FIXTURE],
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stderr: "pipe",
  });
}

function line(id: string, method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params: { _meta: REQUEST_META, ...params } });
}

function isJsonRpc(text: string): boolean {
  try {
    return (JSON.parse(text) as { jsonrpc?: unknown }).jsonrpc === "2.0";
  } catch {
    return false;
  }
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

  it("at stdin EOF, requests still running are answered before exit, a last line without a newline too", T, async () => {
    const transport = spawnFixture();
    const peer = new Peer(transport);
    await transport.connect();
    const exited = new Promise<number | null>((resolve) => transport.child!.once("exit", (code) => resolve(code)));
    const stdin = transport.child!.stdin!;
    stdin.write(line("slow", "tools/call", { name: "sleep", arguments: { ms: 300 } }) + "\n");
    stdin.end(line("unterminated", "tools/call", { name: "sleep", arguments: { ms: 0 } })); // no newline, then EOF
    assert.equal(await exited, 0);
    await peer.waitClosed();
    const answered = Object.fromEntries(peer.messages.map((m) => [m.id, m.result?.content?.[0]?.text]));
    assert.deepEqual(answered, { slow: "slept 300", unterminated: "slept 0" });
    await transport.close();
  });

  it("maxBufferedBytes: a client that never reads stdout is cut off and onEvent is told why, instead of the heap filling", T, async () => {
    const child = spawn(process.execPath, ["--import", "tsx", FIXTURE], {
      cwd: repoRoot,
      env: { ...process.env, MAX_BUFFERED: String(512 * 1024) },
      stdio: ["pipe", "pipe", "pipe"],
    });
    try {
      const stderr = collectStderr(child);
      child.stdout!.pause(); // stdout is never read
      const reported = new Promise<void>((resolve) => child.stderr!.on("data", () => stderr.text.includes("transport-error SlowConsumerEvicted") && resolve()));
      child.stdin!.on("error", () => {});
      for (let id = 0; id < 24; id++) child.stdin!.write(line(`big-${id}`, "tools/call", { name: "big", arguments: { bytes: 1024 * 1024 } }) + "\n");
      await reported;
      assert.match(stderr.text, /maxBufferedBytes 524288/);
    } finally {
      child.kill("SIGKILL");
      await once(child, "exit");
    }
  });

  it("the stdio server applies its line limit: a longer line is dropped, the next one answered", T, async () => {
    const transport = spawnFixture({ MAX_LINE: "400" });
    const peer = new Peer(transport);
    await transport.connect();
    try {
      const stdin = transport.child!.stdin!;
      stdin.write(line("long", "tools/call", { name: "sleep", arguments: { ms: 0, pad: "x".repeat(1000) } }) + "\n");
      stdin.write(line("short", "tools/call", { name: "sleep", arguments: { ms: 0 } }) + "\n");
      await peer.response("short");
      await peer.sync();
      assert.equal(
        peer.messages.find((m) => m.id === "long"),
        undefined,
        "the over-long line never reached the server",
      );
    } finally {
      await transport.close();
    }
  });

  it("an answer from the client to no request of the server is dropped and reported through onEvent, in either era", T, async () => {
    const modern = spawnFixture();
    const legacy = spawnFixture();
    const modernPeer = new Peer(modern);
    const legacyPeer = new Peer(legacy);
    await Promise.all([modern.connect(), legacy.connect()]);
    const stats = `{"jsonrpc":"2.0","id":"stats","method":"tools/call","params":{"name":"stats","arguments":{},"_meta":${JSON.stringify(REQUEST_META)}}}`;
    const legacyStats = '{"jsonrpc":"2.0","id":"stats","method":"tools/call","params":{"name":"stats","arguments":{}}}';
    try {
      modern.child!.stdin!.write(`{"jsonrpc":"2.0","id":"nobody-asked","result":{}}\n${stats}\n`);
      const initialize = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "stdio-test", version: "1" } };
      legacy.child!.stdin!.write(
        [
          JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: initialize }),
          '{"jsonrpc":"2.0","method":"notifications/initialized"}',
          '{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"no"}}',
          legacyStats,
          "",
        ].join("\n"),
      );
      const reported = async (peer: Peer) => JSON.parse((await peer.response("stats")).result.content[0].text).transportErrors;
      assert.deepEqual(await reported(modernPeer), ['dropped an answer to request id "nobody-asked": the server is waiting for no answer with that id']);
      assert.deepEqual(await reported(legacyPeer), ["dropped an answer to request id 7: the server is waiting for no answer with that id"]);
    } finally {
      await Promise.all([modern.close(), legacy.close()]);
    }
  });

  it("the stdio client applies its line limit to what the server writes", T, async () => {
    const script = `process.stdout.write("x".repeat(500) + "\\n" + JSON.stringify({ jsonrpc: "2.0", method: "ok" }) + "\\n")`;
    const transport = new StdioClientTransport({ command: process.execPath, args: ["-e", script], maxLineLength: 100 });
    const events: string[] = [];
    const done = new Promise<void>((resolve) =>
      transport.subscribe((event) => {
        events.push(event.type === "message" ? String(event.message) : event.type);
        if (event.type === "input-ended" || event.type === "closed") resolve();
      }),
    );
    await transport.connect();
    await done;
    await transport.close();
    assert.deepEqual(events.slice(0, 2), ["error", '{"jsonrpc":"2.0","method":"ok"}']);
  });

  it("while a stdio server serves, console output goes to stderr: stdout carries only JSON-RPC lines", T, async () => {
    const transport = new OfficialStdioClientTransport({ command: process.execPath, args: ["--import", "tsx", CONSOLE_FIXTURE], cwd: repoRoot, stderr: "pipe" });
    let stderr = "";
    transport.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const client = new Client({ name: "stdio-console-test", version: "1.0.0" });
    await client.connect(transport);
    // The official transport skips a line that is not JSON without a word: the child's stdout is read here too.
    let stdout = "";
    const child = (transport as unknown as { _process: ChildProcess })._process;
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    try {
      const result = await client.callTool({ name: "chatty", arguments: {} });
      assert.deepEqual(result.content, [{ type: "text", text: "chatted" }]);
      await client.listTools(); // a round trip after the call: any stray line is read by now
      const lines = stdout.split("\n").filter((text) => text !== "");
      assert.ok(lines.length >= 2, `both answers were read:\n${stdout}`);
      assert.deepEqual(
        lines.filter((text) => !isJsonRpc(text)),
        [],
      );
      for (const text of TOOL_LOGS) assert.ok(stderr.includes(text), `${JSON.stringify(text)} reached stderr:\n${stderr}`);
    } finally {
      await client.close();
    }
  });

  it("once the stdio transport closed, console.log writes to stdout again", T, async () => {
    const child = spawn(process.execPath, ["--import", "tsx", CONSOLE_FIXTURE], { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] });
    const stderr = collectStderr(child);
    let stdout = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    const exited = once(child, "exit");
    child.stdin!.end(line("call", "tools/call", { name: "chatty", arguments: {} }) + "\n");
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    await exited;
    clearTimeout(timer);
    const lines = stdout.split("\n").filter((text) => text !== "");
    assert.equal(lines.length, 2, `the answer, then the line logged after close:\n${stdout}`);
    assert.equal(JSON.parse(lines[0]!).result.content[0].text, "chatted");
    assert.equal(lines[1], "console restored");
    assert.ok(stderr.text.includes("log from the tool"), stderr.text);
  });
});

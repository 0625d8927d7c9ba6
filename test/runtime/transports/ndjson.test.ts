import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { NdjsonTransport, type TransportEvent } from "../../../packages/runtime/src/transports/index.js";

function wired(options = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new NdjsonTransport({ readable: input, writable: output }, options);
  const events: TransportEvent[] = [];
  transport.subscribe((event) => events.push(event));
  return { input, output, transport, events };
}

const texts = (events: TransportEvent[]) => events.flatMap((e) => (e.type === "message" ? [e.message] : []));
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("ndjson framing", () => {
  it("one message per line, whatever the chunking, with CRLF and blank lines tolerated", async () => {
    const { input, transport, events } = wired();
    await transport.connect();
    input.write('{"a":1}\r\n\n{"b"');
    input.write(':2}\n   \n{"c":3}');
    input.end();
    await tick();
    assert.deepEqual(texts(events), ['{"a":1}', '{"b":2}', '{"c":3}']);
    assert.equal(events.at(-1)?.type, "closed", "input EOF closes the transport (no drainTimeoutMs)");
  });

  it("writes each message as one line of JSON", async () => {
    const { output, transport } = wired();
    await transport.connect();
    let written = "";
    output.setEncoding("utf8");
    output.on("data", (chunk: string) => (written += chunk));
    await transport.sendMessage({ jsonrpc: "2.0", method: "x", params: { text: "line\nbreak \u2028" } });
    await tick();
    assert.equal(written.split("\n").length, 2);
    assert.deepEqual(JSON.parse(written), { jsonrpc: "2.0", method: "x", params: { text: "line\nbreak \u2028" } });
  });

  it("a message's text built by the sender is written as given, not serialised again", async () => {
    const { output, transport } = wired();
    await transport.connect();
    let written = "";
    output.setEncoding("utf8");
    output.on("data", (chunk: string) => (written += chunk));
    const text = '{"method":"x","jsonrpc":"2.0"}'; // the same message, keys in another order
    await transport.sendMessage({ jsonrpc: "2.0", method: "x" }, text);
    await tick();
    assert.equal(written, text + "\n");
  });

  it("a line longer than the limit is dropped with an error event, and the stream goes on", async () => {
    const { input, transport, events } = wired({ maxLineLength: 10 });
    await transport.connect();
    input.write("x".repeat(50));
    await tick();
    input.write("y".repeat(50));
    input.write('\n{"ok":1}\n');
    await tick();
    assert.equal(events[0].type, "error");
    assert.deepEqual(texts(events), ['{"ok":1}'], "the whole long line is dropped, not just its first part");
  });

  it("the transport context rides on every received message", async () => {
    const { input, transport, events } = wired({ context: { principal: "local-user" } });
    await transport.connect();
    input.write('{"a":1}\n');
    await tick();
    assert.deepEqual(events[0], { type: "message", message: '{"a":1}', context: { principal: "local-user" } });
  });

  it("framing is linear in line length: each input character is searched for a newline once", async () => {
    const { input, transport, events } = wired({ maxLineLength: 4 * 1024 * 1024 });
    await transport.connect();
    const chunk = "z".repeat(1024);
    const chunks = 2000; // one 2 MiB line in 1 KiB pieces, then its newline
    let scanned = 0;
    const indexOf = String.prototype.indexOf;
    String.prototype.indexOf = function (this: string, search: string, from?: number) {
      const found = indexOf.call(this, search, from);
      if (search === "\n") scanned += (found === -1 ? this.length : found + 1) - (from ?? 0);
      return found;
    };
    try {
      for (let i = 0; i < chunks; i++) input.write(chunk);
      input.write("\n");
      await tick();
    } finally {
      String.prototype.indexOf = indexOf;
    }
    assert.equal(texts(events).length, 1);
    assert.equal((texts(events)[0] as string).length, chunks * chunk.length);
    assert.ok(scanned <= chunks * chunk.length + 1, `searched ${scanned} characters for ${chunks * chunk.length + 1} received`);
  });

  it("a complete line over the limit is dropped even when it arrives in one chunk", async () => {
    const { input, transport, events } = wired({ maxLineLength: 10 });
    await transport.connect();
    input.write(`{"pad":"${"x".repeat(20)}"}\n{"ok":1}\n`);
    await tick();
    assert.equal(events[0].type, "error");
    assert.deepEqual(texts(events), ['{"ok":1}']);
  });

  it("with drainTimeoutMs, at input EOF the last unterminated line is delivered, then input-ended, and answers can still be written", async () => {
    const { input, output, transport, events } = wired({ drainTimeoutMs: 60_000 });
    await transport.connect();
    input.end('{"last":1}');
    await tick();
    assert.deepEqual(
      events.map((e) => e.type),
      ["message", "input-ended"],
    );
    assert.equal(transport.connected(), true, "the output stays open for answers still due");
    let written = "";
    output.setEncoding("utf8");
    output.on("data", (chunk: string) => (written += chunk));
    await transport.sendMessage({ jsonrpc: "2.0", id: 1, result: {} });
    await tick();
    assert.equal(written, '{"jsonrpc":"2.0","id":1,"result":{}}\n');
    await transport.close();
    assert.equal(events.at(-1)?.type, "closed");
  });

  it("after input EOF the transport closes by itself once drainTimeoutMs passes", async () => {
    const { input, transport, events } = wired({ drainTimeoutMs: 20 });
    await transport.connect();
    input.end();
    for (let round = 0; round < 500 && events.at(-1)?.type !== "closed"; round++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(
      events.map((e) => e.type),
      ["input-ended", "closed"],
    );
    assert.equal(transport.connected(), false);
  });
});

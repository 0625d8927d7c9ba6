import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { NdjsonTransport, type TransportEvent } from "../../../templates/runtime/index.js";

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
    assert.equal(events.at(-1)?.type, "closed", "input EOF closes the transport");
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
});

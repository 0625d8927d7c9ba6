import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { describe, it, mock } from "node:test";
import { SseWriter } from "../../../packages/runtime/src/transports/http-sse.js";
import { sharedFrame, sseFrame } from "../../../packages/runtime/src/transports/sse-frames.js";
import { SseBudget } from "../../../packages/runtime/src/transports/sse-budget.js";

/** A response whose buffer level the test controls: writes accumulate until `drain()`. */
class FakeResponse extends EventEmitter {
  written: string[] = [];
  headers: Record<string, string> | undefined;
  writableLength = 0;
  destroyed = false;
  writableEnded = false;
  writeHead(_status: number, headers: Record<string, string>) {
    this.headers = headers;
    return this;
  }

  write(chunk: string) {
    this.written.push(chunk);
    this.writableLength += chunk.length;
    return true;
  }
  end() {
    this.writableEnded = true;
  }
  destroy() {
    this.destroyed = true;
  }
  /** The client read everything: the buffer empties and Node says so. */
  drain() {
    this.writableLength = 0;
    this.emit("drain");
  }
}

/** Lets the current turn of the event loop end (the writer flushes its batch). */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

const writerOn = (res: FakeResponse, options = {}) =>
  new SseWriter(res as unknown as ServerResponse, { keepAliveMs: 0, highWaterBytes: 100, maxBufferedBytes: 1000, ...options });

describe("SSE writer", () => {
  it("sends the SSE headers, X-Accel-Buffering: no among them", () => {
    const res = new FakeResponse();
    writerOn(res).destroy();
    assert.equal(res.headers?.["content-type"], "text/event-stream");
    assert.equal(res.headers?.["x-accel-buffering"], "no");
  });

  it("writes a frame in the same turn of the event loop", async () => {
    const res = new FakeResponse();
    const writer = writerOn(res);
    writer.write(sseFrame('{"n":1}'));
    await new Promise<void>((resolve) => process.nextTick(resolve));
    assert.deepEqual(res.written, ['event: message\ndata: {"n":1}\n\n']);
    writer.destroy();
  });

  it("a burst within one turn goes out whole as one write, even past the high-water mark", async () => {
    const res = new FakeResponse();
    const writer = writerOn(res);
    const frames = [0, 1, 2, 3, 4].map((i) => `${i}`.padEnd(60, "x"));
    for (const frame of frames) writer.write(frame);
    await nextTurn();
    assert.deepEqual(res.written, [frames.join("")]);
    assert.equal(writer.coalescedFrames, 0);
    writer.destroy();
  });

  it("a turn that starts above the high-water mark waits: identical frames coalesce, drain flushes in order", async () => {
    const res = new FakeResponse();
    const writer = writerOn(res);
    writer.write("a".repeat(150)); // the client has not read this when the next turn starts
    await nextTurn();
    writer.write("B\n\n");
    writer.write("C\n\n");
    writer.write("B\n\n"); // identical to a waiting frame
    await nextTurn();
    assert.equal(res.written.length, 1, "nothing more written while congested");
    assert.equal(writer.coalescedFrames, 1);
    res.drain();
    assert.deepEqual(res.written.slice(1), ["B\n\nC\n\n"]);
    writer.destroy();
  });

  it("past the cap the stream is ended and stays ended; memory held never exceeds the cap", async () => {
    const res = new FakeResponse();
    const writer = writerOn(res);
    let accepted = 0;
    for (let i = 0; i < 100 && writer.write(`${i}`.padEnd(60, "x")); i++) {
      accepted++;
      if (i % 5 === 4) await nextTurn();
    }
    assert.equal(writer.overflowed, true);
    assert.equal(res.destroyed, true);
    assert.ok(writer.peakBufferedBytes <= 1000, `peak ${writer.peakBufferedBytes}`);
    assert.ok(accepted < 100);
    assert.equal(writer.write("late"), false);
  });

  it("end() after waiting frames ends the response only once they are flushed", async () => {
    const res = new FakeResponse();
    const writer = writerOn(res);
    writer.write("a".repeat(150));
    await nextTurn();
    writer.end("last\n\n");
    assert.equal(res.writableEnded, false);
    res.drain();
    assert.equal(res.written.at(-1), "last\n\n");
    assert.equal(res.writableEnded, true);
  });

  it("sends a keep-alive comment every 15 s by default, and none when the interval is 0", async () => {
    mock.timers.enable({ apis: ["setInterval"] });
    try {
      const res = new FakeResponse();
      const writer = writerOn(res, { keepAliveMs: undefined });
      mock.timers.tick(14_999);
      assert.equal(res.written.length, 0);
      mock.timers.tick(1);
      await nextTurn();
      assert.deepEqual(res.written, [": keep-alive\n\n"]);
      writer.destroy();
      mock.timers.tick(30_000);
      await nextTurn();
      assert.equal(res.written.length, 1, "the timer stops with the stream");

      const quiet = new FakeResponse();
      const silent = writerOn(quiet, { keepAliveMs: 0 });
      mock.timers.tick(60_000);
      await nextTurn();
      assert.equal(quiet.written.length, 0);
      silent.destroy();
    } finally {
      mock.timers.reset();
    }
  });
});

/** A response that also takes shared buffers, and has Node's high-water mark. */
class SharedFakeResponse extends FakeResponse {
  readonly writableHighWaterMark = 16 * 1024;
  override write(chunk: string | Uint8Array) {
    // Shared frames are Uint8Array bytes (encoded once, on every runtime): counted as their text.
    return super.write(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
  }
}

describe("SSE writer: shared frames", () => {
  it("a shared frame counts whole for each stream that holds it, so stuck streams holding it are evicted to keep the budget", () => {
    const budget = new SseBudget(256 * 1024);
    const frame = sharedFrame({ before: `{"pad":"${"x".repeat(100 * 1024)}","_meta":{"id":`, after: "}}" });
    const responses = Array.from({ length: 20 }, () => new SharedFakeResponse());
    const writers = responses.map((res) => writerOn(res, { budget, highWaterBytes: 512 * 1024, maxBufferedBytes: 1024 * 1024 }));
    writers.forEach((writer, i) => writer.writeShared(frame, JSON.stringify(`s-${i}`), "(queued only when congested)"));

    const kept = writers.filter((writer) => writer.eviction === undefined);
    assert.ok(budget.usedBytes <= budget.maxBytes, `the budget holds ${budget.usedBytes} of ${budget.maxBytes} bytes`);
    assert.equal(kept.length, 2, "twenty streams holding one 100 KB buffer count 2 MB: two fit in 256 KiB");
    assert.ok(
      writers.filter((writer) => writer.eviction !== undefined).every((writer) => writer.eviction === "server-budget"),
      "the others go by the budget",
    );
    for (const writer of kept) assert.ok(writer.heldBytes >= frame.bytes, "each kept stream counts the frame whole");
    for (const res of responses) res.drain();
    assert.equal(budget.usedBytes, 0, "drained, the bytes are given back");
  });

  it("a shared frame larger than a stream's cap ends that stream by its cap", () => {
    const budget = new SseBudget(64 * 1024 * 1024);
    const frame = sharedFrame({ before: `{"pad":"${"x".repeat(2000)}","_meta":{"id":`, after: "}}" });
    const writer = writerOn(new SharedFakeResponse(), { budget, highWaterBytes: 512, maxBufferedBytes: 1024 });
    assert.equal(writer.writeShared(frame, '"s"', "(unused)"), false);
    assert.equal(writer.eviction, "stream-cap");
    assert.equal(budget.usedBytes, 0);
  });
});

/**
 * A node:http server whose every response is an SSE stream of `turns`, one turn of the event
 * loop each, then its end. `drainListeners` has, per response once it finished, how many
 * more 'drain' listeners its socket had than when its request came.
 */
async function serveTurns(turns: string[][]): Promise<{ port: number; drainListeners: number[]; close(): Promise<void> }> {
  const drainListeners: number[] = [];
  const server = createServer((req, res) => {
    req.resume();
    const socket = req.socket;
    const before = socket.listenerCount("drain");
    res.on("finish", () => drainListeners.push(socket.listenerCount("drain") - before));
    const writer = new SseWriter(res, { keepAliveMs: 0 });
    const writeTurn = (i: number) => {
      if (i === turns.length) return writer.end();
      for (const frame of turns[i]!) writer.write(frame);
      setImmediate(writeTurn, i + 1);
    };
    writeTurn(0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { port, drainListeners, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Sends `requestText` on a fresh connection and returns everything the server sent until it closed. */
async function exchange(port: number, requestText: string): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  socket.setEncoding("latin1");
  let received = "";
  socket.on("data", (chunk: string) => (received += chunk));
  socket.write(requestText);
  await new Promise((resolve) => socket.once("close", resolve));
  return received;
}

/** The body of one chunked response at the start of `text`, as its chunks, and what follows it. */
function readChunks(text: string): { chunks: string[]; rest: string } {
  let at = text.indexOf("\r\n\r\n") + 4;
  const chunks: string[] = [];
  for (;;) {
    const lineEnd = text.indexOf("\r\n", at);
    const size = parseInt(text.slice(at, lineEnd), 16);
    assert.ok(Number.isInteger(size), `a chunk size line at ${at}: ${JSON.stringify(text.slice(at, at + 20))}`);
    at = lineEnd + 2;
    if (size === 0) return { chunks, rest: text.slice(at + 2) };
    chunks.push(text.slice(at, at + size));
    assert.equal(text.slice(at + size, at + size + 2), "\r\n", "each chunk ends with CRLF");
    at += size + 2;
  }
}

describe("SSE writer: on a real socket", () => {
  const turns = [[sseFrame('{"n":1}'), sseFrame('{"n":2}')], [sseFrame('{"n":"é"}')], [sseFrame('{"n":4}'), sseFrame('{"n":5}')]];
  const body = turns.flat().join("");

  it("an HTTP/1.1 client gets each turn's frames as one whole chunk, sized in bytes", async () => {
    const server = await serveTurns(turns);
    try {
      const received = await exchange(server.port, "GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
      assert.match(received, /^HTTP\/1\.1 200 .*\r\ntransfer-encoding: chunked\r\n/is);
      const { chunks, rest } = readChunks(received);
      assert.deepEqual(
        chunks.map((chunk) => Buffer.from(chunk, "latin1").toString()),
        turns.map((frames) => frames.join("")),
      );
      assert.equal(rest, "");
    } finally {
      await server.close();
    }
  });

  it("an HTTP/1.0 client, which Node does not chunk for, gets the frames as they are", async () => {
    const server = await serveTurns(turns);
    try {
      const received = await exchange(server.port, "GET / HTTP/1.0\r\nhost: x\r\n\r\n");
      assert.doesNotMatch(received, /transfer-encoding/i);
      assert.equal(Buffer.from(received.slice(received.indexOf("\r\n\r\n") + 4), "latin1").toString(), body);
    } finally {
      await server.close();
    }
  });

  it("a pipelined response that waits for the socket keeps its frames whole and in order, and neither leaves a listener on the socket", async () => {
    const server = await serveTurns(turns);
    try {
      const get = "GET / HTTP/1.1\r\nhost: x\r\n\r\n";
      const received = await exchange(server.port, `${get}${get}`.replace(/\r\n\r\n$/, "\r\nconnection: close\r\n\r\n"));
      const first = readChunks(received);
      const second = readChunks(first.rest);
      for (const { chunks } of [first, second]) assert.equal(Buffer.from(chunks.join(""), "latin1").toString(), body);
      assert.equal(second.rest, "");
      assert.deepEqual(server.drainListeners, [0, 0]);
    } finally {
      await server.close();
    }
  });
});

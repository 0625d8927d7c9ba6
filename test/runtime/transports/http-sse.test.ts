import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, it, mock } from "node:test";
import { SseWriter, sseFrame } from "../../../generated/v2607/runtime/transports/http-sse.js";

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
  flushHeaders() {}
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

const writerOn = (res: FakeResponse, options = {}) =>
  new SseWriter(res as unknown as ServerResponse, { keepAliveMs: 0, highWaterBytes: 100, maxBufferedBytes: 1000, ...options });

describe("SSE writer", () => {
  it("sends the SSE headers, X-Accel-Buffering: no among them", () => {
    const res = new FakeResponse();
    writerOn(res).destroy();
    assert.equal(res.headers?.["content-type"], "text/event-stream");
    assert.equal(res.headers?.["x-accel-buffering"], "no");
  });

  it("writes frames at once while the buffer is under the high-water mark", () => {
    const res = new FakeResponse();
    const writer = writerOn(res);
    writer.write(sseFrame('{"n":1}'));
    assert.deepEqual(res.written, ['event: message\ndata: {"n":1}\n\n']);
    writer.destroy();
  });

  it("above the high-water mark frames wait, identical ones coalesce, and drain flushes them in order", () => {
    const res = new FakeResponse();
    const writer = writerOn(res);
    writer.write("a".repeat(150)); // now over the mark
    writer.write("B\n\n");
    writer.write("C\n\n");
    writer.write("B\n\n"); // identical to a waiting frame
    assert.equal(res.written.length, 1, "nothing more written while congested");
    assert.equal(writer.coalescedFrames, 1);
    res.drain();
    assert.deepEqual(res.written.slice(1), ["B\n\n", "C\n\n"]);
    writer.destroy();
  });

  it("past the cap the stream is ended and stays ended; memory held never exceeds the cap", () => {
    const res = new FakeResponse();
    const writer = writerOn(res);
    let accepted = 0;
    for (let i = 0; i < 100 && writer.write(`${i}`.padEnd(60, "x")); i++) accepted++;
    assert.equal(writer.overflowed, true);
    assert.equal(res.destroyed, true);
    assert.ok(writer.peakBufferedBytes <= 1000, `peak ${writer.peakBufferedBytes}`);
    assert.ok(accepted < 100);
    assert.equal(writer.write("late"), false);
  });

  it("end() after waiting frames ends the response only once they are flushed", () => {
    const res = new FakeResponse();
    const writer = writerOn(res);
    writer.write("a".repeat(150));
    writer.end("last\n\n");
    assert.equal(res.writableEnded, false);
    res.drain();
    assert.equal(res.written.at(-1), "last\n\n");
    assert.equal(res.writableEnded, true);
  });

  it("sends a keep-alive comment every 15 s by default, and none when the interval is 0", () => {
    mock.timers.enable({ apis: ["setInterval"] });
    try {
      const res = new FakeResponse();
      const writer = writerOn(res, { keepAliveMs: undefined });
      mock.timers.tick(14_999);
      assert.equal(res.written.length, 0);
      mock.timers.tick(1);
      assert.deepEqual(res.written, [": keep-alive\n\n"]);
      writer.destroy();
      mock.timers.tick(30_000);
      assert.equal(res.written.length, 1, "the timer stops with the stream");

      const quiet = new FakeResponse();
      const silent = writerOn(quiet, { keepAliveMs: 0 });
      mock.timers.tick(60_000);
      assert.equal(quiet.written.length, 0);
      silent.destroy();
    } finally {
      mock.timers.reset();
    }
  });
});

/**
 * A legacy session's replay window (legacy/replay.ts): event ids name their stream,
 * what is kept is bounded in count and bytes, a resume gets only its own stream's events
 * after its cursor, and a resume from before what was dropped is refused rather than
 * answered with a gap.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseEventId, ReplayBuffer, STANDALONE_STREAM } from "../../../packages/runtime/src/legacy/replay.js";

describe("the legacy replay window", () => {
  it("ids name the stream and a session-wide sequence; only this server's shape parses", () => {
    const buffer = new ReplayBuffer({ maxEvents: 10, maxBytes: 1024 });
    const post = buffer.newStream();
    assert.equal(buffer.record(STANDALONE_STREAM, "{}"), "0-1");
    assert.equal(buffer.record(post, "{}"), `${post}-2`);
    assert.deepEqual(parseEventId(`${post}-2`), { stream: post, seq: 2 });
    for (const bad of ["", "1", "1-", "-1", "a-1", "1-2-3", "1-99999999999999999"]) assert.equal(parseEventId(bad), undefined, bad);
    assert.ok(buffer.knows(post) && !buffer.knows(post + 1));
  });

  it("a resume gets its own stream's events after the cursor, nothing of another stream", () => {
    const buffer = new ReplayBuffer({ maxEvents: 10, maxBytes: 1024 });
    const post = buffer.newStream();
    const first = parseEventId(buffer.record(STANDALONE_STREAM, '"a"'))!;
    buffer.record(post, '"answer"');
    buffer.record(STANDALONE_STREAM, '"b"');
    assert.deepEqual(
      buffer.after(first)!.map((event) => event.json),
      ['"b"'],
    );
    assert.deepEqual(
      buffer.after({ stream: post, seq: 0 })!.map((event) => event.json),
      ['"answer"'],
    );
  });

  it("a burst far beyond the window keeps at most maxEvents and maxBytes; a cursor from before the drop is refused", () => {
    const limits = { maxEvents: 50, maxBytes: 16 * 1024 };
    const buffer = new ReplayBuffer(limits);
    const payload = JSON.stringify("x".repeat(500));
    const start = parseEventId(buffer.mark(STANDALONE_STREAM))!;
    let last = start;
    for (let i = 0; i < 5000; i++) {
      last = parseEventId(buffer.record(STANDALONE_STREAM, payload))!;
      assert.ok(
        buffer.heldEvents <= limits.maxEvents && buffer.heldBytes <= limits.maxBytes,
        `after ${i}: ${buffer.heldEvents} events, ${buffer.heldBytes} bytes`,
      );
    }
    assert.equal(buffer.after(start), undefined, "the events after the start are gone: no silent gap");
    assert.deepEqual(buffer.after(last), []);
    const recent = { stream: STANDALONE_STREAM, seq: last.seq - 3 };
    assert.equal(buffer.after(recent)!.length, 3);
    // An event larger than the whole window is not kept, and a resume from before it is refused.
    const big = parseEventId(buffer.record(STANDALONE_STREAM, JSON.stringify("y".repeat(limits.maxBytes))))!;
    assert.equal(buffer.after(last), undefined);
    assert.deepEqual(buffer.after(big), []);
  });

  it("drop bookkeeping stays bounded across many streams: each new stream's drops do not pile up", () => {
    const buffer = new ReplayBuffer({ maxEvents: 8, maxBytes: 1024 });
    const streams: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const stream = buffer.newStream();
      streams.push(stream);
      buffer.record(stream, '"one event"');
    }
    // Every early stream lost its event; a resume of any of them is refused, not answered empty.
    assert.equal(buffer.after({ stream: streams[0]!, seq: 0 }), undefined);
    assert.equal(buffer.after({ stream: streams[1500]!, seq: 0 }), undefined);
    assert.equal(buffer.after({ stream: streams.at(-1)!, seq: 0 })!.length, 1);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TimerGroup } from "../../../packages/runtime/src/transports/timer-group.js";

/** Counts the intervals started while `run` runs. */
function intervalsStartedBy(run: () => void): number {
  const original = globalThis.setInterval;
  let started = 0;
  globalThis.setInterval = ((...args: Parameters<typeof setInterval>) => (started++, original(...args))) as typeof setInterval;
  try {
    run();
  } finally {
    globalThis.setInterval = original;
  }
  return started;
}

describe("timer groups", () => {
  it("a lingering group (request bodies) reuses one timer for members joining one after another", () => {
    const group = new TimerGroup<object>(1000, () => {}, true);
    const started = intervalsStartedBy(() => {
      for (let i = 0; i < 100; i++) {
        const member = {};
        group.add(member);
        group.delete(member);
      }
    });
    assert.equal(started, 1);
  });

  it("a lingering group's timer stops on the first beat that finds it empty", async () => {
    let ticks = 0;
    const group = new TimerGroup<object>(10, () => void ticks++, true);
    const member = {};
    group.add(member);
    await new Promise((wake) => setTimeout(wake, 35));
    group.delete(member);
    const ticked = ticks;
    assert.ok(ticked >= 1, "the member was ticked while it was in the group");
    await new Promise((wake) => setTimeout(wake, 50));
    assert.equal(ticks, ticked, "no tick after the member left");
    const next = {};
    const restarted = intervalsStartedBy(() => group.add(next));
    assert.equal(restarted, 1, "the timer had stopped: a new member starts one again");
    group.delete(next); // the unref'd timer stops on its next beat
  });

  it("a group that does not linger (streams) stops its timer with its last member", () => {
    const group = new TimerGroup<object>(1000, () => {});
    const started = intervalsStartedBy(() => {
      for (let i = 0; i < 3; i++) {
        const member = {};
        group.add(member);
        group.delete(member);
      }
    });
    assert.equal(started, 3);
  });
});

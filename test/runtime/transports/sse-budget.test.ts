/**
 * The server-wide buffered-output budget: over it, congested streams are evicted, the one
 * holding the most first, until the total is back within it; streams that keep up never.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SseBudget, type BudgetedStream } from "../../../packages/runtime/src/transports/sse-budget.js";

/** A stream that holds `bytes`, charged to `budget`, and gives them back when evicted. */
function stream(budget: SseBudget, bytes: number, evicted: string[], name: string): BudgetedStream & { grow(by: number): void } {
  const made = {
    heldBytes: 0,
    evict() {
      evicted.push(name);
      budget.setCongested(made, false);
      budget.charge(-made.heldBytes);
      made.heldBytes = 0;
    },
    grow(by: number) {
      made.heldBytes += by;
      budget.charge(by);
    },
  };
  made.grow(bytes);
  return made;
}

describe("SseBudget", () => {
  it("over the budget, congested streams are evicted largest first until the total is within it", () => {
    const budget = new SseBudget(1000);
    const evicted: string[] = [];
    const small = stream(budget, 200, evicted, "small");
    const large = stream(budget, 400, evicted, "large");
    const healthy = stream(budget, 300, evicted, "healthy");
    budget.setCongested(small, true);
    budget.setCongested(large, true);
    assert.deepEqual(evicted, [], "within the budget nothing happens");
    healthy.grow(200); // 1100: over by 100
    assert.deepEqual(evicted, ["large"], "the largest congested stream goes, and that is enough");
    assert.equal(budget.usedBytes, 700);
    assert.equal(budget.evictions, 1);
    assert.ok(budget.peakBytes <= 1000, `peak ${budget.peakBytes} is counted after eviction`);
  });

  it("a stream that keeps up is never evicted, even when only it is over", () => {
    const budget = new SseBudget(100);
    const evicted: string[] = [];
    const healthy = stream(budget, 50, evicted, "healthy");
    healthy.grow(500);
    assert.deepEqual(evicted, []);
    assert.equal(budget.usedBytes, 550);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { filterProblem, gateFor, intersectFilter, unionFilters } from "../../../packages/runtime/src/subscriptions/filter.js";
import { stampNotification } from "../../../packages/runtime/src/subscriptions/stream.js";

const ALL = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourcesUpdated: true } as const;
const ID_KEY = "io.modelcontextprotocol/subscriptionId";

describe("subscription filters", () => {
  it("honored is never wider than requested, nor than what the handler declared", () => {
    const requested = { toolsListChanged: true, promptsListChanged: false, resourceSubscriptions: ["a", "b", "a"] };
    assert.deepEqual(intersectFilter(requested, ALL), { toolsListChanged: true, resourceSubscriptions: ["a", "b"] });
    assert.deepEqual(intersectFilter(requested, { resourcesUpdated: true }), { resourceSubscriptions: ["a", "b"] });
    assert.deepEqual(intersectFilter(requested, ALL, { promptsListChanged: true, resourceSubscriptions: ["b", "c"] }), { resourceSubscriptions: ["b"] });
    assert.deepEqual(intersectFilter(requested, ALL, {}), {});
    assert.deepEqual(intersectFilter({ resourceSubscriptions: [] }, ALL), {}, "an empty URI list is no subscription");
  });

  it("the ack's union keeps each URI once, in first-seen order", () => {
    assert.deepEqual(unionFilters([{ toolsListChanged: true, resourceSubscriptions: ["b"] }, { resourceSubscriptions: ["a", "b"] }]), {
      toolsListChanged: true,
      resourceSubscriptions: ["b", "a"],
    });
  });

  it("a requested filter must be an object of booleans and URI string lists", () => {
    assert.equal(filterProblem({ toolsListChanged: true, resourceSubscriptions: ["x"], unknownKey: 5 }), undefined);
    assert.match(filterProblem(null)!, /must be an object/);
    assert.match(filterProblem({ promptsListChanged: 1 })!, /promptsListChanged" must be a boolean/);
    assert.match(filterProblem({ resourceSubscriptions: "x" })!, /array of URI strings/);
  });

  it("the send gate maps each honored kind to its notification method", () => {
    const gate = gateFor({ toolsListChanged: true, resourceSubscriptions: ["u"] });
    assert.equal(gate.get("notifications/tools/list_changed"), true);
    assert.deepEqual([...(gate.get("notifications/resources/updated") as Set<string>)], ["u"]);
    assert.equal(gate.has("notifications/prompts/list_changed"), false);
  });

  it("stamping touches subscription-stream methods only, never overwrites, and never mutates the input", () => {
    const shared = { method: "notifications/tools/list_changed", params: { _meta: { other: 1 } } };
    const a = stampNotification(shared, "a");
    const b = stampNotification(shared, 2);
    assert.deepEqual(a.params, { _meta: { other: 1, [ID_KEY]: "a" } });
    assert.deepEqual(b.params, { _meta: { other: 1, [ID_KEY]: 2 } });
    assert.deepEqual(shared, { method: "notifications/tools/list_changed", params: { _meta: { other: 1 } } });
    assert.deepEqual(stampNotification({ method: "notifications/progress", params: { progress: 1 } }, "a"), {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progress: 1 },
    });
    const kept = stampNotification({ method: "notifications/tools/list_changed", params: { _meta: { [ID_KEY]: "x" } } }, "a");
    assert.equal((kept.params!._meta as Record<string, unknown>)[ID_KEY], "x");
  });
});

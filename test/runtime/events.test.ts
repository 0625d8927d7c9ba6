import { test } from "node:test";
import assert from "node:assert/strict";
import { InProcessEventSource, type EventSource } from "../../packages/runtime/src/index.js";

test("a publish reaches every subscriber of its topic and no other", async () => {
  const events = new InProcessEventSource();
  const seen: string[] = [];
  events.subscribe("tools", (payload, topic) => seen.push(`a:${topic}:${JSON.stringify(payload)}`));
  events.subscribe("tools", (payload) => seen.push(`b:${JSON.stringify(payload)}`));
  events.subscribe("prompts", () => seen.push("prompts"));
  await events.publish("tools", { n: 1 });
  assert.deepEqual(seen, ['a:tools:{"n":1}', 'b:{"n":1}']);
});

test("unsubscribe stops delivery and is idempotent", async () => {
  const events = new InProcessEventSource();
  const seen: number[] = [];
  const unsubscribe = events.subscribe("t", (n) => seen.push(n as number));
  await events.publish("t", 1);
  unsubscribe();
  unsubscribe();
  await events.publish("t", 2);
  assert.deepEqual(seen, [1]);
  assert.equal(events.listenerCount(), 0);
});

test("the same listener subscribed twice is two subscriptions", async () => {
  const events = new InProcessEventSource();
  let calls = 0;
  const listener = () => calls++;
  const first = events.subscribe("t", listener);
  events.subscribe("t", listener);
  first();
  await events.publish("t", null);
  assert.equal(calls, 1);
});

test("a throwing listener is reported and does not stop the others", async () => {
  const errors: string[] = [];
  const events = new InProcessEventSource({ onListenerError: (error, topic) => errors.push(`${topic}:${(error as Error).message}`) });
  let reached = false;
  events.subscribe("t", () => {
    throw new Error("boom");
  });
  events.subscribe("t", () => (reached = true));
  await events.publish("t", {});
  assert.equal(reached, true);
  assert.deepEqual(errors, ["t:boom"]);
});

test("a listener unsubscribed by an earlier one during a publish is not called", async () => {
  const events = new InProcessEventSource();
  let lateCalls = 0;
  let unsubscribeLate = () => {};
  events.subscribe("t", () => unsubscribeLate());
  unsubscribeLate = events.subscribe("t", () => lateCalls++);
  await events.publish("t", {});
  assert.equal(lateCalls, 0);
});

test("a subscriber added during a publish waits for the next one", async () => {
  const events = new InProcessEventSource();
  const seen: string[] = [];
  events.subscribe("t", (n) => {
    seen.push(`first:${n}`);
    if (n === 1) events.subscribe("t", (m) => seen.push(`added:${m}`));
  });
  await events.publish("t", 1);
  await events.publish("t", 2);
  assert.deepEqual(seen, ["first:1", "first:2", "added:2"]);
});

test("topics are typed by the map the source is created with", async () => {
  type Topics = { tools: { reason: string } };
  const events: EventSource<Topics> = new InProcessEventSource<Topics>();
  let reason = "";
  events.subscribe("tools", (payload) => (reason = payload.reason));
  await events.publish("tools", { reason: "added" });
  assert.equal(reason, "added");
  // @ts-expect-error: the payload of "tools" must carry a reason
  await events.publish("tools", { other: 1 });
  assert.equal(reason, undefined, "types are a compile-time check only");
});

test("close drops every subscription", async () => {
  const events = new InProcessEventSource();
  let calls = 0;
  events.subscribe("t", () => calls++);
  await events.close();
  await events.publish("t", {});
  assert.equal(calls, 0);
  assert.equal(events.listenerCount("t"), 0);
});

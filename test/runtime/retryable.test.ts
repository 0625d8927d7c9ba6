import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer, type RuntimeEvent, type SubscriptionHandler } from "../../packages/runtime/src/index.js";
import { Peer } from "../support/runtime-peer.js";

const T = { timeout: 20_000 };

/** A broker's failure as a store outside the runtime raises it: its own class, marked `retryable`. */
class BrokerAwayError extends Error {
  readonly retryable = true;
}

function serverReading(events: RuntimeEvent[], failure: () => Error) {
  const server = createServer({ name: "t", version: "1", onEvent: (event) => events.push(event) });
  server.addResource({ uri: "notes://shared", name: "shared", mimeType: "text/plain" }, () => {
    throw failure();
  });
  return server;
}

describe("requests failing on something away for now", () => {
  it("a request failing on a retryable error (or one caused by it) is answered -32603 saying to retry, and still reported with its cause", T, async () => {
    const failures = [
      () => new BrokerAwayError("broker at 10.0.0.1 is out of reach"),
      () => new Error("read failed", { cause: new BrokerAwayError("broker away") }),
    ];
    for (const failure of failures) {
      const events: RuntimeEvent[] = [];
      const server = serverReading(events, failure);
      const peer = await Peer.connect(server, "test");
      const answer = await peer.request("resources/read", { uri: "notes://shared" });
      assert.equal(answer.error?.code, -32603);
      assert.equal(answer.error?.message, "resources/read needs a service this server cannot reach right now; retry the request shortly");
      assert.doesNotMatch(answer.error.message, /10\.0\.0\.1/, "the cause stays in the log");
      const reported = events.filter((event) => event.type === "handler-error");
      assert.equal(reported.length, 1, "reported once");
      assert.equal(reported[0]!.callback, "resources/read");
      assert.match((reported[0]!.error as Error).message, /broker|read failed/, "with its cause");
      await server.close();
    }
  });

  it("any other failure stays an internal error", T, async () => {
    const events: RuntimeEvent[] = [];
    const server = serverReading(events, () => new Error("a bug"));
    const peer = await Peer.connect(server, "test");
    const answer = await peer.request("resources/read", { uri: "notes://shared" });
    assert.equal(answer.error?.message, "Internal error while handling resources/read");
    assert.equal(events.filter((event) => event.type === "handler-error").length, 1);
    await server.close();
  });

  it("a listen refused for a retryable reason is answered -32603 saying to listen again, the reason reported; any other stays declined", T, async () => {
    let reason: Error | string = Object.assign(new Error("the broker is out of reach"), { retryable: true });
    const events: RuntimeEvent[] = [];
    const server = createServer({ name: "t", version: "1", onEvent: (event) => events.push(event) });
    const refusing: SubscriptionHandler<never> = {
      subscriptionCapabilities: () => ({ toolsListChanged: true }),
      subscribe: () => ({ stop: reason }),
      handleMessage: () => ({ stop: "normal" }),
    };
    server.addSubscriptionHandler(refusing);
    const peer = await Peer.connect(server, "test");
    const refused = await peer.request("subscriptions/listen", { notifications: { toolsListChanged: true } }, "away");
    assert.deepEqual(refused.error, { code: -32603, message: "The server cannot serve this subscription right now; listen again shortly" });
    assert.ok(events.some((event) => event.type === "stream-rejected" && event.reason === reason), "the reason is reported");
    reason = "forbidden";
    const declined = await peer.request("subscriptions/listen", { notifications: { toolsListChanged: true } }, "forbidden");
    assert.deepEqual(declined.error, { code: -32602, message: "The server declined this subscription" });
    await server.close();
  });
});

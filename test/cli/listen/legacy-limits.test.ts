/**
 * `mcp-gen listen`'s legacy session reads nothing unbounded: an answer or a GET-stream
 * event larger than `maxMessageBytes` ends the session with one error naming the limit.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { listen, type ListenEvent } from "../../../cli/listen/listen.js";
import { CliError } from "../../../cli/errors.js";
import { createServer, InProcessEventSource } from "../../../packages/runtime/src/index.js";
import { serveHttp } from "../../../packages/runtime/src/transports/http-server.js";
import { fanoutHandler, type FanoutTopics } from "../../support/fanout-app.js";
import { until } from "../../support/runtime-peer.js";

const LIMIT = 2048;

describe("mcp-gen listen's legacy session is bounded by maxMessageBytes", () => {
  it("an initialize answer over the limit: one error naming it, and nothing printed", async () => {
    const server = createServer({ name: "big", version: "1", instructions: "x".repeat(4 * LIMIT) });
    const handle = await serveHttp(server);
    const events: ListenEvent[] = [];
    try {
      await assert.rejects(
        listen({ target: { url: handle.url }, legacy: true, maxMessageBytes: LIMIT }, (event) => events.push(event)),
        (error: unknown) => error instanceof CliError && new RegExp(`exceeds ${LIMIT} bytes; raise maxMessageBytes`).test(error.message),
      );
      assert.deepEqual(
        events.map((event) => event.kind),
        ["legacy"],
      );
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("a notification over the limit on the GET stream ends the session with the reason", async () => {
    const sources = new InProcessEventSource<FanoutTopics>();
    const server = createServer({ name: "big-event", version: "1" });
    server.addSubscriptionHandler(fanoutHandler(sources));
    const handle = await serveHttp(server);
    // Over the event limit, under the server's URI length bound (legacy.maxSubscriptionUriLength).
    const longUri = `file:///${"y".repeat(LIMIT + 100)}`;
    const events: ListenEvent[] = [];
    try {
      const listening = listen({ target: { url: handle.url }, legacy: true, maxMessageBytes: LIMIT, filter: { resourceSubscriptions: [longUri] } }, (event) =>
        events.push(event),
      );
      const failed = assert.rejects(
        listening,
        (error: unknown) => error instanceof CliError && /the GET stream failed: an SSE event exceeds 2048 characters/.test(error.message),
      );
      await until(() => events.some((event) => event.kind === "ack"), "the session's stream to open");
      await sources.publish(`resource:${longUri}`, { origin: "test", uri: longUri });
      await failed;
      assert.ok(!events.some((event) => event.kind === "notification"));
      await until(() => server.legacySessions.size === 0, "the DELETE after the failure");
    } finally {
      await handle.close();
      await server.close();
    }
  });
});

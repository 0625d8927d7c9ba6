import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { describe, it } from "node:test";
import { serveHttp } from "../../../packages/runtime/src/transports/http-server.js";
import { countingApp, openListen } from "./http-helpers.js";

// In a file of its own: the process-wide timer count starts from this test alone.
const T = { timeout: 20_000 };

describe("Streamable HTTP: teardown", () => {
  it("a client that disconnects mid-stream triggers handleClose once, leaving no timer, listener or socket", T, async () => {
    const app = countingApp();
    const handle = await serveHttp(app.server, { keepAliveMs: 60_000 });
    // The sockets requests came on. fetch may open a spare connection beside them, which sends
    // nothing and which it keeps for as long as the server's Keep-Alive header allows: that one
    // is the client's, not something the stream left.
    const used = new Set<Socket>();
    handle.httpServer.on("request", (req) => used.add(req.socket));
    const openSockets = () => [...used].filter((socket) => !socket.destroyed).length;
    try {
      const timersBefore = countResources("Timeout");
      const stream = await openListen(handle.url, "gone", { toolsListChanged: true, resourceSubscriptions: ["file:///a"] });
      await stream.next();
      assert.equal(app.events.listenerCount(), 3);
      assert.equal(countResources("Timeout"), timersBefore + 1, "the keep-alive timer runs while the stream is open");
      stream.close();
      await app.closed(1);
      await app.events.publish("tools", {}); // nobody left to hear it
      await waitFor(async () => openSockets() === 0 && countResources("Timeout") === timersBefore);
      assert.equal(app.counts.handleClose, 1);
      assert.equal(app.events.listenerCount(), 0);
      assert.equal(countResources("Timeout"), timersBefore, "keep-alive timer cleared");
      assert.ok(used.size > 0);
      assert.equal(openSockets(), 0, "no socket left open");
    } finally {
      await handle.close();
    }
  });
});

function countResources(kind: string): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === kind).length;
}

/** Teardown is asynchronous: polls a bounded number of times, then lets the asserts speak. */
async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let round = 0; round < 500; round++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

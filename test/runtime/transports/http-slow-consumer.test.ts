/**
 * A client that stops reading must not grow the server's memory without bound. Policy
 * (see http-sse.ts): above a high-water mark frames wait and identical ones coalesce;
 * past the cap the stream is ended (an outside teardown). Other streams are unaffected.
 */
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { describe, it } from "node:test";
import { serveHttp, type SseStreamReport } from "../../../templates/runtime/transports/http-server.js";
import { countingApp, mcpHeaders, openListen, request } from "./http-helpers.js";

const MAX_BUFFERED = 256 * 1024;
const HIGH_WATER = 32 * 1024;
const FRAME_PAD = "x".repeat(2000);

/** Opens a listen stream on a raw socket and never reads from it. */
async function stalledListen(url: string, id: string, notifications: Record<string, unknown>): Promise<Socket> {
  const { hostname, port, pathname } = new URL(url);
  const message = request(id, "subscriptions/listen", { notifications });
  const body = JSON.stringify(message);
  const headers = { ...mcpHeaders(message), host: `${hostname}:${port}`, "content-length": String(Buffer.byteLength(body)) };
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  socket.write(
    `POST ${pathname} HTTP/1.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join("\r\n")}\r\n\r\n${body}`,
  );
  socket.pause(); // and never resume: the kernel buffers fill, then Node's
  return socket;
}

/** Lets the event loop turn so mailboxes drain and sockets flush. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("Streamable HTTP: slow consumers", () => {
  it("a stalled client's stream stays bounded and is ended; another stream gets every notification", { timeout: 120_000 }, async () => {
    const app = countingApp({ limits: { mailboxSize: 10_000 } });
    const reports: SseStreamReport[] = [];
    const handle = await serveHttp(app.server, { highWaterBytes: HIGH_WATER, maxBufferedBytes: MAX_BUFFERED, onStreamEnd: (r) => reports.push(r) });
    const stalled = await stalledListen(handle.url, "stalled", { resourceSubscriptions: ["file:///a"] });
    const healthy = await openListen(handle.url, "healthy", { resourceSubscriptions: ["file:///a"] });
    try {
      assert.equal((await healthy.next()).method, "notifications/subscriptions/acknowledged");
      while (app.counts.subscribe < 2) await tick();
      let published = 0;
      let received = 0;
      // Bounded flood: up to 40 MB, in bursts (100 KB, under the cap) that the healthy client
      // reads in full before the next one.
      for (let batch = 0; batch < 400 && app.counts.handleClose === 0; batch++) {
        for (let i = 0; i < 50; i++) await app.events.publish("resources", { uri: "file:///a", pad: `${published++}${FRAME_PAD}` });
        for (; received < published; received++) {
          const frame = await healthy.next();
          assert.equal(
            frame?.params?.pad?.startsWith(String(received)),
            true,
            `healthy stream frame ${received} in order: ${JSON.stringify(frame).slice(0, 300)}`,
          );
        }
      }
      await app.closed(1);
      assert.equal(app.counts.handleClose, 1, "the stalled stream was torn down once");
      const report = reports.find((r) => r.requestId === "stalled")!;
      assert.equal(report.overflowed, true);
      assert.ok(report.peakBufferedBytes <= MAX_BUFFERED, `peak ${report.peakBufferedBytes} bytes within the ${MAX_BUFFERED} cap`);
      assert.equal(received, published, "the healthy stream got every notification");
      // Still serving: the healthy stream hears the next event too.
      await app.events.publish("resources", { uri: "file:///a" });
      assert.equal((await healthy.next()).params.uri, "file:///a");
    } finally {
      stalled.destroy();
      healthy.close();
      await handle.close();
    }
  });
});

/**
 * A client that stops reading must not grow the server's memory without bound. Policy
 * (see http-sse.ts and sse-budget.ts): above a high-water mark frames wait and identical
 * ones coalesce; past the per-stream cap, after a refused write with no drain for too long, or when all
 * streams together exceed the server-wide budget, a congested stream is evicted (an
 * outside teardown the server reports as "evicted"). Streams that keep up are unaffected.
 */
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { describe, it } from "node:test";
import type { RuntimeEvent } from "../../../packages/runtime/src/index.js";
import type { SseStreamReport } from "../../../packages/runtime/src/transports/http-exchange.js";
import { serveHttp } from "../../../packages/runtime/src/transports/http-server.js";
import { SseBudget } from "../../../packages/runtime/src/transports/sse-budget.js";
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
      assert.equal(report.eviction, "stream-cap");
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

describe("Streamable HTTP: the server-wide buffered-output budget", () => {
  const STALLED = 16;
  const HEALTHY = 3;
  const BUDGET = 2 * 1024 * 1024;
  const BURST = 50;

  it("many stalled clients are evicted, the most congested first, the budget holds and healthy streams get everything", { timeout: 120_000 }, async () => {
    const events: RuntimeEvent[] = [];
    const app = countingApp({ limits: { mailboxSize: 10_000, maxStreamsPerClient: 100 }, onEvent: (e) => events.push(e) });
    const budget = new SseBudget(BUDGET);
    const reports: SseStreamReport[] = [];
    // The per-stream cap alone would let the stalled streams hold 16 MiB; the budget allows 2.
    const handle = await serveHttp(app.server, {
      budget,
      highWaterBytes: HIGH_WATER,
      maxBufferedBytes: 1024 * 1024,
      maxStalledMs: 0,
      onStreamEnd: (r) => reports.push(r),
    });
    const stalled = await Promise.all(
      Array.from({ length: STALLED }, (_, i) => stalledListen(handle.url, `stalled-${i}`, { resourceSubscriptions: ["file:///a"] })),
    );
    const healthy = await Promise.all(
      Array.from({ length: HEALTHY }, (_, i) => openListen(handle.url, `healthy-${i}`, { resourceSubscriptions: ["file:///a"] })),
    );
    try {
      for (const stream of healthy) assert.equal((await stream.next()).method, "notifications/subscriptions/acknowledged");
      while (app.counts.subscribe < STALLED + HEALTHY) await tick();
      let published = 0;
      let burstBytes = 0;
      let overBudget = 0;
      for (let batch = 0; batch < 400 && app.counts.handleClose < STALLED; batch++) {
        const first = published;
        for (let i = 0; i < BURST; i++) await app.events.publish("resources", { uri: "file:///a", pad: `${published++}${FRAME_PAD}` });
        if (budget.usedBytes > BUDGET) overBudget++;
        for (const stream of healthy) {
          for (let n = first; n < published; n++) {
            const frame = await stream.next();
            assert.equal(frame?.params?.pad?.startsWith(String(n)), true, `healthy frame ${n} in order`);
            burstBytes = Math.max(burstBytes, JSON.stringify(frame).length * BURST);
          }
        }
      }
      await app.closed(STALLED);
      assert.equal(app.counts.handleClose, STALLED, "every stalled stream was torn down, once");
      assert.equal(overBudget, 0, "after each burst the streams held no more than the budget");
      // Within a burst only the healthy streams' own burst can sit on top of the budget.
      assert.ok(budget.peakBytes <= BUDGET + HEALTHY * burstBytes, `peak ${budget.peakBytes} within ${BUDGET} + ${HEALTHY} bursts of ${burstBytes}`);
      const evicted = reports.filter((r) => r.requestId?.toString().startsWith("stalled"));
      assert.equal(evicted.length, STALLED);
      assert.ok(
        evicted.every((r) => r.eviction === "server-budget" || r.eviction === "stream-cap"),
        JSON.stringify(evicted.map((r) => r.eviction)),
      );
      assert.ok(budget.evictions > 0 && evicted.some((r) => r.eviction === "server-budget"), "the budget, not only the per-stream cap, evicted");
      assert.equal(events.filter((e) => e.type === "stream-closed" && e.cause === "evicted").length, STALLED, "the server reports each as evicted");
      assert.equal(
        reports.some((r) => r.requestId?.toString().startsWith("healthy")),
        false,
        "no healthy stream was ended",
      );
      await app.events.publish("resources", { uri: "file:///a" });
      for (const stream of healthy) assert.equal((await stream.next()).params.uri, "file:///a");
    } finally {
      for (const socket of stalled) socket.destroy();
      for (const stream of healthy) stream.close();
      await handle.close();
    }
  });

  it("large frames written while a stream still looked healthy count too: the budget holds after each one", { timeout: 60_000 }, async () => {
    const app = countingApp({ limits: { mailboxSize: 10_000, maxStreamsPerClient: 100 } });
    const budget = new SseBudget(1024 * 1024);
    const handle = await serveHttp(app.server, { budget, highWaterBytes: HIGH_WATER, maxBufferedBytes: 4 * 1024 * 1024, maxStalledMs: 0 });
    const stalled = await Promise.all(Array.from({ length: 12 }, (_, i) => stalledListen(handle.url, `big-${i}`, { resourceSubscriptions: ["file:///a"] })));
    try {
      while (app.counts.subscribe < 12) await tick();
      const big = "z".repeat(200 * 1024);
      for (let round = 0; round < 100 && app.counts.handleClose < 12; round++) {
        await app.events.publish("resources", { uri: "file:///a", pad: `${round}${big}` });
        await tick();
        assert.ok(budget.usedBytes <= budget.maxBytes, `round ${round}: ${budget.usedBytes} bytes held, budget ${budget.maxBytes}`);
      }
      await app.closed(12);
      assert.ok(budget.evictions > 0, "the budget evicted");
    } finally {
      for (const socket of stalled) socket.destroy();
      await handle.close();
    }
  });

  it(
    "a stream whose socket refused a write and has not drained for maxStalledMs is evicted, below the high-water mark and with nothing more sent",
    { timeout: 30_000 },
    async () => {
      const app = countingApp({ limits: { mailboxSize: 10_000 } });
      const reports: SseStreamReport[] = [];
      const HIGH = 64 * 1024 * 1024; // never reached: frames never wait in the writer's own list
      const handle = await serveHttp(app.server, {
        highWaterBytes: HIGH,
        maxBufferedBytes: HIGH,
        maxStalledMs: 300,
        keepAliveMs: 0,
        onStreamEnd: (r) => reports.push(r),
      });
      const stalled = await stalledListen(handle.url, "stalled", { resourceSubscriptions: ["file:///a"] });
      try {
        while (app.counts.subscribe < 1) await tick();
        // 16 MB, well past what the kernel takes for a socket whose peer reads nothing (its
        // send buffer, 4 MiB at most by Linux's default tcp_wmem, and the peer's window), in
        // 100 KB bursts; then nothing more, so only the stall timer can end the stream.
        for (let burst = 0; burst < 160 && app.counts.handleClose === 0; burst++) {
          for (let i = 0; i < 50; i++) await app.events.publish("resources", { uri: "file:///a", pad: `${burst}-${i}${FRAME_PAD}` });
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await app.closed(1);
        const report = reports.find((r) => r.requestId === "stalled")!;
        assert.equal(report.eviction, "stalled");
        assert.ok(report.peakBufferedBytes < HIGH, "ended by the stall time, never congested by the writer's high-water mark");
      } finally {
        stalled.destroy();
        await handle.close();
      }
    },
  );

  // HIGH_WATER (32 KiB) is below Node 22's high-water mark for a socket (64 KiB): the writer
  // still lets Node's buffer reach that mark, so the refused write starts the stall clock on
  // every Node version.
  it(
    "a stream that stays congested is evicted by the stall time, whatever Node's high-water mark, never holding more than the cap",
    { timeout: 60_000 },
    async () => {
      const app = countingApp({ limits: { mailboxSize: 10_000 } });
      const reports: SseStreamReport[] = [];
      const handle = await serveHttp(app.server, { highWaterBytes: HIGH_WATER, maxStalledMs: 300, onStreamEnd: (r) => reports.push(r) });
      const stalled = await stalledListen(handle.url, "stalled", { resourceSubscriptions: ["file:///a"] });
      try {
        while (app.counts.subscribe < 1) await tick();
        // Enough to congest it (the kernel's buffers first), then a trickle.
        for (let round = 0; round < 600 && app.counts.handleClose === 0; round++) {
          for (let i = 0; i < 20; i++) await app.events.publish("resources", { uri: "file:///a", pad: `${round}-${i}${FRAME_PAD}` });
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await app.closed(1);
        const report = reports.find((r) => r.requestId === "stalled")!;
        assert.equal(report.eviction, "stalled");
        assert.ok(report.peakBufferedBytes <= 1024 * 1024, "never more than the per-stream cap");
      } finally {
        stalled.destroy();
        await handle.close();
      }
    },
  );

  it(
    "a client that falls behind past the kernel's buffers and then reads gets every frame, with highWaterBytes below Node's mark",
    { timeout: 60_000 },
    async () => {
      const app = countingApp({ limits: { mailboxSize: 10_000 } });
      const reports: SseStreamReport[] = [];
      // 8 KiB: below Node's high-water mark for a socket (16 KiB, 64 KiB from Node 22).
      const handle = await serveHttp(app.server, {
        highWaterBytes: 8 * 1024,
        maxBufferedBytes: 8 * 1024 * 1024,
        keepAliveMs: 0,
        onStreamEnd: (r) => reports.push(r),
      });
      const socket = await stalledListen(handle.url, "behind", { resourceSubscriptions: ["file:///a"] });
      try {
        while (app.counts.subscribe < 1) await tick();
        // About 6 MB while the client reads nothing: more than the kernel takes (about 4 MB
        // on Linux loopback), less than the 8 MiB cap, so frames wait in the writer.
        const FRAMES = 3000;
        for (let i = 0; i < FRAMES; i++) {
          await app.events.publish("resources", { uri: "file:///a", pad: `${i}-${FRAME_PAD}` });
          if (i % 50 === 49) await tick();
        }
        let text = "";
        socket.setEncoding("latin1");
        socket.on("data", (chunk: string) => (text += chunk));
        socket.resume();
        const last = `"pad":"${FRAMES - 1}-`;
        // Reads until the last frame came, or until nothing more came for 3 s (the frames stuck in the writer).
        for (let length = -1, still = 0; !text.includes(last) && still < 30; still = text.length === length ? still + 1 : 0) {
          length = text.length;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal(text.split('"method":"notifications/resources/updated"').length - 1, FRAMES, "every frame reached the client");
        assert.deepEqual(reports, [], "the stream is still open");
      } finally {
        socket.destroy();
        await handle.close();
      }
    },
  );
});

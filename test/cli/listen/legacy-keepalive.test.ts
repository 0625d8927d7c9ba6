/**
 * A legacy session that only listens keeps telling the server it is there: the runtime ends
 * a session whose client is silent past `legacy.maxSilentMs` even with its GET stream open,
 * so the listen client pings it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LEGACY_VERSION } from "../../../generated/index.js";
import { LegacyHttpSession } from "../../../cli/listen/legacy-http.js";
import { createServer } from "../../../packages/runtime/src/index.js";
import { serveHttp } from "../../../packages/runtime/src/transports/http-server.js";
import { until } from "../../support/runtime-peer.js";

const SILENT_MS = 300;

async function watchedSession(keepAliveMs: number) {
  const server = createServer({ name: "silent", version: "1", legacy: { maxSilentMs: SILENT_MS } });
  server.setRequestHandler("tools/list", () => ({ tools: [], cacheScope: "private" as const, ttlMs: 0 }));
  const handle = await serveHttp(server);
  const session = new LegacyHttpSession(handle.url, { maxMessageBytes: 1 << 20, keepAliveMs });
  await session.request("initialize", { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: "k", version: "1" } });
  await session.notify("notifications/initialized");
  const stop = new AbortController();
  const watching = session.watch(
    () => {},
    stop.signal,
    () => {},
  );
  return {
    server,
    watching,
    async close() {
      stop.abort();
      await watching;
      await handle.close();
      await server.close();
    },
  };
}

describe("a listening legacy session and the server's silence bound", () => {
  it("without pings the server ends the session while its GET stream is open (the bound is real)", async () => {
    const run = await watchedSession(60_000);
    try {
      await until(() => run.server.legacySessions.size === 1, "the session to open");
      assert.deepEqual(await run.watching, { how: "gone", reason: "the server ended the session (404)" });
    } finally {
      await run.close();
    }
  });

  it("with pings more often than the bound the session outlives it several times over", async () => {
    const run = await watchedSession(SILENT_MS / 4);
    try {
      await until(() => run.server.legacySessions.size === 1, "the session to open");
      await new Promise((resolve) => setTimeout(resolve, SILENT_MS * 4));
      assert.equal(run.server.legacySessions.size, 1, "the session is still open");
    } finally {
      await run.close();
    }
  });
});

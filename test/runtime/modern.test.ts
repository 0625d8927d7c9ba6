/**
 * The no-era entry (runtime/modern.ts): a server without the initialize era answers an older
 * client exactly as the main entry's `createServer({ legacy: false })` does, on a connection
 * and over HTTP, and opens nothing of its own for it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer as createMainServer } from "../../packages/runtime/src/index.js";
import { createServer, serveHttp } from "../../packages/runtime/src/modern.js";
import { LegacyPeer } from "../support/legacy-peer.js";

const INITIALIZE = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "older", version: "1" } };
const ACCEPT = "application/json, text/event-stream";

/** What one server answers an older client: an `initialize` on a connection, the same POSTed, and a GET asking for an HTTP+SSE stream. */
async function answersToAnOlderClient(server: ReturnType<typeof createServer>): Promise<unknown> {
  const peer = await LegacyPeer.open(server);
  const onConnection = await peer.call("initialize", INITIALIZE);
  const handle = await serveHttp(server);
  try {
    const posted = await fetch(handle.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: ACCEPT },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE }),
    });
    const opened = await fetch(handle.url, { headers: { accept: "text/event-stream" } });
    await opened.body?.cancel();
    return {
      onConnection,
      overHttp: { status: posted.status, session: posted.headers.get("mcp-session-id"), body: await posted.json() },
      sseOpen: opened.status,
      sessions: server.legacySessions.size,
    };
  } finally {
    await handle.close();
    await server.close();
  }
}

describe("a server from the no-era entry", () => {
  it("answers an older client's initialize as a modern-only server does: -32602 naming the versions it speaks, no session", async () => {
    const noEra = await answersToAnOlderClient(createServer({ name: "modern", version: "1" }));
    const modernOnly = await answersToAnOlderClient(createMainServer({ name: "modern", version: "1", legacy: false }));
    assert.deepEqual(noEra, modernOnly);
    const { onConnection, overHttp, sseOpen } = noEra as { onConnection: any; overHttp: any; sseOpen: number };
    assert.equal(onConnection.error.code, -32602);
    assert.deepEqual(onConnection.error.data.supported, ["2026-07-28"]);
    assert.equal(overHttp.status, 400);
    assert.equal(overHttp.session, null);
    assert.equal(sseOpen, 405);
  });
});

/**
 * A flood of `initialize` requests against the session limit: every one past
 * `maxSessions` is refused with 503, Retry-After and one message naming the limit, no
 * session id is handed out, and the server keeps nothing of the refused ones (its heap
 * after a collection does not grow with their number).
 */
import assert from "node:assert/strict";
import { Agent, request } from "node:http";
import { describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createServer } from "../../../packages/runtime/src/index.js";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const MAX_SESSIONS = 20;
const FLOOD = 2000;
const PHASES = 3;
/** Heap one flood may leave behind: far below what keeping anything per refused request would cost (a session, its id and map entry are several hundred bytes: 2000 of them, over 512 KiB). */
const ALLOWED_GROWTH_BYTES = 256 * 1024;

const agent = new Agent({ keepAlive: true, maxSockets: 8 });
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "flood", version: "1" } },
});

function initialize(handle: HttpServerHandle): Promise<{ status: number; sessionId: unknown; retryAfter: unknown; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      handle.url,
      { method: "POST", agent, headers: { "content-type": "application/json", accept: "application/json, text/event-stream" } },
      (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (chunk) => (body += chunk));
        res.once("end", () => resolve({ status: res.statusCode!, sessionId: res.headers["mcp-session-id"], retryAfter: res.headers["retry-after"], body }));
      },
    );
    outgoing.once("error", reject);
    outgoing.end(INITIALIZE);
  });
}

async function settledHeap(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

describe("a legacy session flood", () => {
  it("stops at maxSessions with 503 and a message naming the limit, and the refused ones leave no memory behind", { timeout: 120_000 }, async () => {
    const server = createServer({ name: "flood", version: "1", legacy: { maxSessions: MAX_SESSIONS, maxSessionsPerClient: MAX_SESSIONS, sessionHeadroom: 0 } });
    const handle = await serveHttp(server);
    try {
      for (let i = 0; i < MAX_SESSIONS; i++) assert.equal((await initialize(handle)).status, 200);
      const flood = async (count: number) => {
        for (let i = 0; i < count; i++) {
          const refused = await initialize(handle);
          assert.equal(refused.status, 503);
          assert.equal(refused.sessionId, undefined);
          assert.equal(refused.retryAfter, "5");
          assert.match(JSON.parse(refused.body).error.message, new RegExp(`limit of ${MAX_SESSIONS} legacy sessions; retry later`));
        }
      };
      await flood(500); // warm-up: code paths compiled, sockets and pools made
      // Three floods, the heap measured after each: a leak grows it every time, while a
      // one-off allocation elsewhere in the process shows up in one phase at most.
      const growths: number[] = [];
      let heap = await settledHeap();
      for (let phase = 0; phase < PHASES; phase++) {
        await flood(FLOOD);
        const now = await settledHeap();
        growths.push(now - heap);
        heap = now;
      }
      assert.equal(server.legacySessions.size, MAX_SESSIONS);
      assert.ok(Math.min(...growths) < ALLOWED_GROWTH_BYTES, `the heap grew by ${growths.join(", ")} bytes over each ${FLOOD} refused sessions`);
    } finally {
      agent.destroy();
      await handle.close();
      await server.close();
    }
  });
});

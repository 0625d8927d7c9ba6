/**
 * A Redis that stops answering without refusing anything (SIGSTOP: its connections stay open,
 * as behind a partition) under a scaffolded replica: the replica says it is degraded (still ready), every
 * request that needs Redis is answered with a retryable error instead of waiting, a request
 * that does not need it is served, and once Redis answers again all is as before.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../../support/eventually.js";
import { startRedisServer, type RedisServer } from "../../support/redis-server.js";
import { connectHttpClient } from "./fanout-process.js";
import { startReplicas, type Replicas } from "./replicas.js";
import { scaffoldProject, type ScaffoldedProject } from "./scaffolded.js";

/** Beyond this a request is taken as hanging: well above the command timeout, well below the 40 s a frozen broker held requests. */
const HANGING_MS = 20_000;

/** GET /readyz as status and body. */
const readyz = async (origin: string) => {
  const response = await fetch(`${origin}/readyz`);
  return `${response.status} ${await response.text()}`;
};

/** A 2025-11-25 `initialize` POSTed as a client would, its status, Retry-After and JSON-RPC answer. */
async function legacyInitialize(url: string): Promise<{ status: number; retryAfter: string | null; body: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "partitioned", version: "1.0.0" } },
    }),
    signal: AbortSignal.timeout(HANGING_MS),
  });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.text() };
}

describe("Redis that stops answering under a scaffolded replica", { timeout: 240_000 }, () => {
  let redis: RedisServer;
  let project: ScaffoldedProject;
  let replicas: Replicas;

  before(async () => {
    redis = await startRedisServer();
    project = scaffoldProject(["--transport", "http", "--event-source", "redis"]);
    replicas = await startReplicas(project, 1, { REDIS_URL: redis.url });
  });
  after(async () => {
    redis?.thaw();
    await replicas?.stop();
    project?.remove();
    await redis?.stop();
  });

  test("while Redis does not answer: /readyz stays 200 naming what is degraded, a tools/call and a legacy initialize needing it get a retryable error, tools/list is served; then all is back", async (t) => {
    const origin = `http://127.0.0.1:${replicas.ports[0]}`;
    const client = await connectHttpClient(`${origin}/mcp`, "partitioned");
    try {
      assert.equal((await client.callTool({ name: "toggle_greet", arguments: {} })).isError ?? false, false, "served before");
      redis.freeze();
      try {
        assert.ok(
          await eventually(async () => (await readyz(origin)) === "200 degraded: event source, task store, session store\n", HANGING_MS),
          "/readyz names what is degraded",
        );
        const call = await client.callTool({ name: "toggle_greet", arguments: {} }, { timeout: HANGING_MS });
        t.diagnostic(`tools/call while frozen: ${JSON.stringify(call.content)}`);
        assert.equal(call.isError, true, "the call that needed Redis failed");
        assert.match(JSON.stringify(call.content), /did not answer/, "and says why");
        const initialize = await legacyInitialize(`${origin}/mcp`);
        t.diagnostic(`initialize while frozen: ${initialize.status} retry-after ${initialize.retryAfter} ${initialize.body}`);
        // Refused at once (503, Retry-After) once the store's own probe has found it silent; before that, its write times out into a JSON-RPC error.
        if (initialize.status === 503) assert.ok(initialize.retryAfter !== null, "a 503 carries Retry-After");
        else assert.equal(initialize.status, 200);
        assert.match(initialize.body, /"error":\{"code":-32603,"message":"The session store [^"]*retry/, "a retryable error, no session");
        const listed = await client.listTools(undefined, { timeout: HANGING_MS });
        assert.ok(
          listed.tools.some((tool) => tool.name === "toggle_greet"),
          "tools/list served while Redis does not answer",
        );
      } finally {
        redis.thaw();
      }
      assert.ok(await eventually(async () => (await readyz(origin)) === "200 ok\n", HANGING_MS), "/readyz whole again");
      const back = await client.callTool({ name: "toggle_greet", arguments: {} });
      assert.equal(back.isError ?? false, false, `served again: ${JSON.stringify(back.content)}`);
      assert.equal((await legacyInitialize(`${origin}/mcp`)).status, 200, "a legacy initialize is served again");
    } finally {
      await client.close();
    }
  });
});

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { mcpRequestHeaders } from "../../../packages/runtime/src/transports/http-request.js";
import type { JsonRpcMessage } from "../../../packages/runtime/src/index.js";
import { eventually } from "../../support/eventually.js";
import { startRedisServer, subscriberCount, type RedisServer } from "../../support/redis-server.js";
import { connectHttpClient as connect } from "./fanout-process.js";
import { TEST_STATE_KEY } from "./replicas.js";
import { isWhole, readyUrl, scaffoldProject, servedUrl, startProject, type ScaffoldedProject, type StartedServer } from "./scaffolded.js";

describe("a project made with --event-source redis, run as two processes on one Redis", { timeout: 180_000 }, () => {
  let redis: RedisServer;
  let project: ScaffoldedProject;
  const servers: StartedServer[] = [];
  const clients: Client[] = [];
  const start = async (env: Record<string, string>) => {
    const server = startProject(project, [], { PORT: "0", MCP_STATE_KEY: TEST_STATE_KEY, ...env });
    servers.push(server);
    return server;
  };

  before(async () => {
    redis = await startRedisServer();
    project = scaffoldProject(["--transport", "http", "--event-source", "redis"]);
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    for (const server of servers) if (server.child.exitCode === null) server.child.kill("SIGKILL");
    await Promise.all(servers.map((server) => server.exited));
    project?.remove();
    await redis?.stop();
  });

  test("toggle_greet on process A notifies the listener on process B; SIGTERM still ends it gracefully", async () => {
    const [serverA, serverB] = [await start({ REDIS_URL: redis.url }), await start({ REDIS_URL: redis.url })];
    const [urlA, urlB] = [await readyUrl(serverA), await readyUrl(serverB)];
    const listener = await connect(urlB, "listener-on-b");
    const caller = await connect(urlA, "caller-on-a");
    clients.push(listener, caller);
    const changed: Array<Record<string, any>> = [];
    listener.setNotificationHandler("notifications/tools/list_changed", (notification) => void changed.push(notification));
    const subscription = await listener.listen({ toolsListChanged: true });
    // Both processes are subscribed to the sample handler's topic from the start: toggle_greet applies its changes from it.
    // (B's listener joins B's subscription; the handler acks only once Redis has it: no waiting needed before the call.)
    assert.equal(await subscriberCount(redis.url, "mcp:events:tool-changes"), 2);

    const result = await caller.callTool({ name: "toggle_greet", arguments: {} });
    assert.equal(result.isError ?? false, false);
    assert.ok(await eventually(() => changed.length === 1), "B's listener was notified");
    assert.equal(changed[0]!.params?._meta?.["io.modelcontextprotocol/subscriptionId"], "listen:0");

    serverB.child.kill("SIGTERM");
    assert.equal(await subscription.closed, "graceful");
    assert.equal(await serverB.exited, 0, serverB.stderr());
  });

  test("MCP_STATE_KEY: with the Redis event source and no key, the server refuses to start in one line naming the variable and how to set it", async () => {
    for (const key of ["", "too-short"]) {
      const server = await start({ REDIS_URL: redis.url, MCP_STATE_KEY: key });
      assert.equal(await server.exited, 1, server.stderr());
      assert.equal(server.stderr().trim().split("\n").length, 1, server.stderr());
      assert.match(
        server.stderr(),
        /^error: MCP_STATE_KEY is (not set|9 characters).*: set MCP_STATE_KEY to the same secret on every server process, e\.g\. MCP_STATE_KEY=\$\(openssl rand -base64 32\)\n$/,
      );
    }
  });

  test("MCP_STATE_KEY: an ask_name round started on one process is answered through another", async () => {
    const [serverA, serverB] = [await start({ REDIS_URL: redis.url }), await start({ REDIS_URL: redis.url })];
    const [urlA, urlB] = [await readyUrl(serverA), await readyUrl(serverB)];
    const first = await post(urlA, askName(1));
    assert.equal(first.result.resultType, "input_required", JSON.stringify(first));
    const answer = { name: { action: "accept", content: { name: "Ada" } } };
    const retry = await post(urlB, askName(2, { inputResponses: answer, requestState: first.result.requestState }));
    assert.equal(retry.result?.content?.[0]?.text, "Nice to meet you, Ada!", JSON.stringify(retry));
    for (const server of [serverA, serverB]) server.child.kill("SIGKILL");
  });

  test("a bad REDIS_URL is one line naming it and the form to use", async () => {
    const server = await start({ REDIS_URL: "http://127.0.0.1:6379" });
    assert.equal(await server.exited, 1);
    assert.equal(server.stderr().trim().split("\n").length, 1, server.stderr());
    assert.match(server.stderr(), /^error: REDIS_URL "http:\/\/127\.0\.0\.1:6379" is not a Redis URL; use the form redis:\/\/127\.0\.0\.1:6379/);
  });

  // Last: it stops the broker the other tests share.
  test("started while Redis is down, the server serves degraded (healthz 200, readyz 200 naming what is out of reach, a call that publishes fails and changes nothing), then whole once Redis is up", async () => {
    await redis.kill();
    const server = await start({ REDIS_URL: redis.url });
    const url = await servedUrl(server);
    const origin = new URL(url).origin;
    await new Promise((resolve) => setTimeout(resolve, 1500)); // several attempts, each refused
    assert.equal(server.child.exitCode, null, `still running: ${server.stderr()}`);
    assert.equal((await fetch(`${origin}/healthz`)).status, 200);
    const readyz = await fetch(`${origin}/readyz`);
    assert.equal(readyz.status, 200, "still ready while Redis is down: it serves discover and lists");
    assert.equal(await readyz.text(), "degraded: event source, task store, session store\n");
    assert.match(server.stderr(), /^warn: health: degraded: event source, task store, session store out of reach;/m);
    assert.match(server.stderr(), /cannot reach redis:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); reconnecting with backoff/);
    const client = await connect(url, "during-outage");
    clients.push(client);
    const toolNames = async () => (await client.listTools()).tools.map((tool) => tool.name).sort();
    const before = await toolNames();
    const refused = await client.callTool({ name: "toggle_greet", arguments: {} });
    assert.equal(refused.isError, true, "the call that must publish fails");
    assert.match(JSON.stringify(refused.content), /was not published/);
    assert.deepEqual(await toolNames(), before, "and changed nothing");

    await redis.restart();
    assert.ok(await eventually(() => isWhole(origin), 20_000), "whole once Redis is up");
    const served = await client.callTool({ name: "toggle_greet", arguments: {} });
    assert.equal(served.isError ?? false, false);
    assert.deepEqual(await toolNames(), [...before, "greet"].sort());
  });
});

/** A raw 2026-07-28 tools/call of ask_name (the official client answers input rounds itself, on one connection). */
function askName(id: number, extra: Record<string, unknown> = {}) {
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "state-key-test", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  };
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name: "ask_name", arguments: {}, ...extra, _meta } };
}

async function post(url: string, message: object): Promise<any> {
  const response = await fetch(url, { method: "POST", headers: mcpRequestHeaders(message as JsonRpcMessage), body: JSON.stringify(message) });
  return response.json();
}

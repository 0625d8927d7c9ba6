import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { eventually } from "../support/eventually.js";
import { freePort, startRedisServer, subscriberCount, type RedisServer } from "../support/redis-server.js";
import { connectHttpClient as connect } from "./fanout-process.js";
import { scaffoldProject, servedUrl, startProject, type ScaffoldedProject, type StartedServer } from "./scaffolded.js";

describe("a project made with --event-source redis, run as two processes on one Redis", { timeout: 180_000 }, () => {
  let redis: RedisServer;
  let project: ScaffoldedProject;
  const servers: StartedServer[] = [];
  const clients: Client[] = [];
  const start = async (env: Record<string, string>) => {
    const server = startProject(project, [], { PORT: "0", ...env });
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
    const [urlA, urlB] = [await servedUrl(serverA), await servedUrl(serverB)];
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

  test("started with Redis out of reach, the server exits 1 with one line naming the URL and the fix", async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const server = await start({ REDIS_URL: url });
    assert.equal(await server.exited, 1);
    assert.deepEqual(server.stderr().trim().split("\n").length, 1, server.stderr());
    assert.match(server.stderr(), new RegExp(`^error: cannot reach Redis at ${url.replace(/\./g, "\\.")} \\(ECONNREFUSED, .*set REDIS_URL`));
  });
});

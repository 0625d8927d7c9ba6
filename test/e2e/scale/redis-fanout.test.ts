import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { META_KEYS, PROTOCOL_VERSION } from "../../../generated/index.js";
import { type JsonRpcMessage } from "../../../packages/runtime/src/index.js";
import { HttpClientTransport } from "../../../packages/runtime/src/transports/index.js";
import { startRedisServer, subscriberCount, type RedisServer } from "../../support/redis-server.js";
import { freePort } from "../../support/ports.js";
import { eventually } from "../../support/eventually.js";
import { connectHttpClient, spawnFanout, startFanoutHttp, type FanoutProcess } from "./fanout-process.js";

type Message = Record<string, any>;
const SUBSCRIPTION_ID = META_KEYS.subscriptionId;

/** How many server connections listen on a topic's Redis channel right now. */
const subscribersOf = (url: string, topic: string) => subscriberCount(url, `mcp:events:${topic}`);

/** A listen stream opened with the runtime's HTTP client, under an id the test chooses. */
async function runtimeListen(url: string, id: string, notifications: Record<string, unknown>) {
  const transport = new HttpClientTransport(url);
  await transport.connect();
  const messages: Message[] = [];
  transport.subscribe((event) => {
    if (event.type === "message") messages.push(typeof event.message === "string" ? JSON.parse(event.message) : event.message);
  });
  const meta = { [META_KEYS.protocolVersion]: PROTOCOL_VERSION, [META_KEYS.clientCapabilities]: {} };
  await transport.sendMessage({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: { notifications, _meta: meta } } as JsonRpcMessage);
  const notificationsOf = (method: string) => messages.filter((m) => m.method === method);
  assert.ok(await eventually(() => notificationsOf("notifications/subscriptions/acknowledged").length === 1), `no ack for ${id}`);
  return { transport, messages, notificationsOf };
}

async function fire(client: Client, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name: "fire", arguments: args });
  const text = (result.content as Array<{ text?: string }>)[0]?.text ?? "";
  if (result.isError) throw new Error(text);
  return text;
}

describe("two server processes over HTTP sharing one Redis", { timeout: 120_000 }, () => {
  let redis: RedisServer;
  let nodeA: FanoutProcess;
  let nodeB: FanoutProcess;
  let callerOnA: Client;
  const cleanups: Array<() => Promise<unknown>> = [];

  before(async () => {
    redis = await startRedisServer();
    const env = { EVENT_SOURCE: "redis", REDIS_URL: redis.url };
    [nodeA, nodeB] = await Promise.all([startFanoutHttp({ ...env, NODE_NAME: "A" }), startFanoutHttp({ ...env, NODE_NAME: "B" })]);
    callerOnA = await connectHttpClient(nodeA.url, "caller-on-a");
  });
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    await callerOnA?.close().catch(() => {});
    await Promise.all([nodeA?.kill(), nodeB?.kill()]);
    await redis?.stop();
  });

  test("a tool call on process A reaches the official client listening on process B, stamped with its subscription id", async () => {
    const listener = await connectHttpClient(nodeB.url, "listener-on-b");
    cleanups.push(() => listener.close());
    const changed: Message[] = [];
    listener.setNotificationHandler("notifications/tools/list_changed", (notification) => void changed.push(notification));
    const subscription = await listener.listen({ toolsListChanged: true });
    assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true });
    // No waiting: the ack is only sent once Redis has B's subscription, so one call suffices.
    assert.equal(await fire(callerOnA, { prompts: false }), "A fired 1 events");
    assert.ok(await eventually(() => changed.length === 1), "B's listener got no notification");
    // The official client numbers its listen requests listen:0, listen:1, ...; this is its first.
    assert.equal(changed[0]!.params?._meta?.[SUBSCRIPTION_ID], "listen:0");
  });

  test("each stream on B gets only its own kind, stamped with its own id, from events published on A", async () => {
    const tools = await runtimeListen(nodeB.url, "b-tools", { toolsListChanged: true });
    const prompts = await runtimeListen(nodeB.url, "b-prompts", { promptsListChanged: true });
    const resource = await runtimeListen(nodeB.url, "b-resource", { resourceSubscriptions: ["file:///watched"] });
    cleanups.push(
      () => tools.transport.close(),
      () => prompts.transport.close(),
      () => resource.transport.close(),
    );

    await fire(callerOnA, { tools: true, prompts: true, resourceUris: ["file:///other", "file:///watched"] });
    const delivered = () =>
      tools.notificationsOf("notifications/tools/list_changed").length +
      prompts.notificationsOf("notifications/prompts/list_changed").length +
      resource.notificationsOf("notifications/resources/updated").length;
    assert.ok(await eventually(() => delivered() === 3), `delivered ${delivered()} of 3`);
    // A marker event proves nothing else was still on its way to these streams.
    await fire(callerOnA, { tools: true, prompts: false });
    assert.ok(await eventually(() => tools.notificationsOf("notifications/tools/list_changed").length === 2));

    const after = (stream: typeof tools) => stream.messages.filter((m) => m.method !== "notifications/subscriptions/acknowledged");
    assert.deepEqual(
      after(prompts).map((m) => [m.method, m.params._meta[SUBSCRIPTION_ID]]),
      [["notifications/prompts/list_changed", "b-prompts"]],
    );
    assert.deepEqual(
      after(resource).map((m) => [m.method, m.params.uri, m.params._meta[SUBSCRIPTION_ID]]),
      [["notifications/resources/updated", "file:///watched", "b-resource"]],
    );
    assert.ok(after(tools).every((m) => m.method === "notifications/tools/list_changed" && m.params._meta[SUBSCRIPTION_ID] === "b-tools"));
  });

  test("killing and restarting Redis mid-stream keeps both servers and the open stream up, and delivery resumes", async () => {
    const listener = await connectHttpClient(nodeB.url, "outage-listener");
    cleanups.push(() => listener.close());
    let changed = 0;
    listener.setNotificationHandler("notifications/tools/list_changed", () => void changed++);
    const subscription = await listener.listen({ toolsListChanged: true });
    let ended: string | undefined;
    void subscription.closed.then((how) => (ended = how));
    assert.ok(await eventually(async () => (await subscribersOf(redis.url, "tools")) >= 1));
    await fire(callerOnA, { prompts: false });
    assert.ok(await eventually(() => changed === 1), "delivery before the outage");

    await redis.kill();
    assert.ok(await eventually(() => nodeA.stderr().includes("reconnecting with backoff")), nodeA.stderr());
    assert.ok(await eventually(() => nodeB.stderr().includes("reconnecting with backoff")), nodeB.stderr());
    // During the outage a publish fails fast and says why; the server answers and stays up.
    await assert.rejects(fire(callerOnA, { prompts: false }), /Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable/);

    await redis.restart();
    assert.ok(await eventually(() => nodeB.stderr().includes("subscriber reconnected"), 30_000), nodeB.stderr());
    assert.ok(await eventually(async () => (await subscribersOf(redis.url, "tools")) >= 1, 30_000), "B resubscribed");
    // A's publisher may come back a moment after B's subscriber: retry the call, bounded.
    assert.ok(
      await eventually(
        () =>
          fire(callerOnA, { prompts: false }).then(
            () => true,
            () => false,
          ),
        30_000,
      ),
      "A could publish again",
    );
    assert.ok(await eventually(() => changed >= 2), "delivery resumed on the stream opened before the outage");
    assert.equal(ended, undefined, "the listen stream stayed open");
    assert.equal(nodeA.child.exitCode, null);
    assert.equal(nodeB.child.exitCode, null);
  });
});

test("a server started with Redis down exits 1 with one line naming the URL and the fix", { timeout: 30_000 }, async () => {
  const port = await freePort();
  const { exited, stderr } = spawnFanout({ EVENT_SOURCE: "redis", REDIS_URL: `redis://127.0.0.1:${port}` });
  assert.equal(await exited, 1);
  const lines = stderr().trim().split("\n");
  assert.equal(lines.length, 1, stderr());
  assert.match(lines[0]!, new RegExp(`^error: cannot reach Redis at redis://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED, .*set REDIS_URL`));
});

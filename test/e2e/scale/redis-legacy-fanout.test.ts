/**
 * With the Redis event source, a change published on one process reaches the legacy
 * (2025-11-25) sessions on every process: two server processes sharing one real Redis,
 * a 1.x SDK client with default options on each, and the change made by a tool call on
 * one of them.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { eventually } from "../../support/eventually.js";
import { REDIS_TOPOLOGIES, startSharedRedis, type SharedRedis } from "../../support/shared-redis.js";
import { startFanoutHttp, type FanoutProcess } from "./fanout-process.js";

/** A 1.x SDK client on `url`, counting the notifications it hears. */
async function legacyClient(url: string, name: string) {
  const client = new Client({ name, version: "1.0.0" });
  const heard = { toolsChanged: 0, updated: [] as string[] };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard.toolsChanged++);
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void heard.updated.push(notification.params.uri));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, heard };
}

async function fire(client: Client, args: Record<string, unknown>): Promise<void> {
  const result = await client.callTool({ name: "fire", arguments: args });
  if (result.isError) throw new Error(JSON.stringify(result.content));
}

for (const topology of REDIS_TOPOLOGIES) {
  describe(`Redis fan-out to legacy sessions on two processes (${topology})`, { timeout: 120_000 }, () => {
    let redis: SharedRedis;
    let nodeA: FanoutProcess;
    let nodeB: FanoutProcess;

    before(async () => {
      redis = await startSharedRedis(topology);
      const env = { EVENT_SOURCE: "redis", REDIS_URL: redis.url };
      [nodeA, nodeB] = await Promise.all([startFanoutHttp({ ...env, NODE_NAME: "A" }), startFanoutHttp({ ...env, NODE_NAME: "B" })]);
    });
    after(async () => {
      await Promise.all([nodeA?.kill(), nodeB?.kill()]);
      await redis?.stop();
    });

    test("a tool call through a legacy session on A reaches the legacy sessions on A and B: list changes and a subscribed resource's updates", async () => {
      const onA = await legacyClient(nodeA.url, "legacy-on-a");
      const onB = await legacyClient(nodeB.url, "legacy-on-b");
      try {
        assert.equal(onA.client.getServerVersion()?.name, "A");
        assert.equal(onB.client.getServerVersion()?.name, "B");
        await onB.client.subscribeResource({ uri: "file:///watched" });
        // A session's implicit stream joins Redis after `initialized`, and its GET stream opens
        // a moment later: the change is repeated (bounded) until both have heard one.
        assert.ok(
          await eventually(async () => {
            await fire(onA.client, { tools: true, prompts: false, resourceUris: ["file:///watched"] });
            return onA.heard.toolsChanged > 0 && onB.heard.toolsChanged > 0 && onB.heard.updated.length > 0;
          }, 30_000),
          `A heard ${onA.heard.toolsChanged}, B heard ${onB.heard.toolsChanged} list changes and ${onB.heard.updated.length} updates`,
        );
        assert.deepEqual([...new Set(onB.heard.updated)], ["file:///watched"]);
        assert.deepEqual(onA.heard.updated, [], "A's session subscribed to no resource");
      } finally {
        await onA.client.close();
        await onB.client.close();
      }
    });
  });
}

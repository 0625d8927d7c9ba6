import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { createServer, McpError, type Channel, type Server } from "../../../packages/runtime/src/index.js";
import { connectTestClient, TestClient } from "../../../packages/runtime/src/testing/index.js";
import { META_KEYS } from "../../../generated/index.js";
import { recordingHandler } from "../../support/recording-handler.js";

let server: Server;
let client: TestClient;
let channels: Channel[];

beforeEach(async () => {
  server = createServer({ name: "client-test", version: "0.0.0" });
  server.addTool({ name: "echo", inputSchema: { type: "object" } }, async (args) => ({ content: [{ type: "text", text: String(args?.text) }] }));
  const { handler, log } = recordingHandler({ declares: { toolsListChanged: true, promptsListChanged: true } });
  channels = log.channels;
  server.addSubscriptionHandler(handler);
  client = await connectTestClient(server, { timeoutMs: 2_000 });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

test("a request resolves with its typed result", async () => {
  const result = await client.request("tools/call", { name: "echo", arguments: { text: "hi" } });
  assert.deepEqual(result.content, [{ type: "text", text: "hi" }]);
  const listed = await client.request("tools/list");
  assert.deepEqual(
    listed.tools.map((tool) => tool.name),
    ["echo"],
  );
});

test("an error response rejects with an McpError carrying its code", async () => {
  await assert.rejects(client.request("prompts/get", { name: "missing" }), (error: unknown) => error instanceof McpError && error.code === -32601);
});

test("a listen stream resolves once acknowledged and hands over only its own notifications, in order", async () => {
  const first = await client.listen({ toolsListChanged: true }, { id: "one" });
  const second = await client.listen({ promptsListChanged: true }, { id: "two" });
  assert.deepEqual(first.honored, { toolsListChanged: true });
  channels[0]!.post({ send: { method: "notifications/tools/list_changed" } });
  channels[0]!.post({ send: { method: "notifications/tools/list_changed" } });
  channels[1]!.post({ send: { method: "notifications/prompts/list_changed" } });
  const a = await first.next("notifications/tools/list_changed");
  const b = await first.next("notifications/tools/list_changed");
  assert.notEqual(a, b, "next takes each notification once");
  assert.equal(b.params?._meta?.[META_KEYS.subscriptionId], "one");
  const prompts = await second.next("notifications/prompts/list_changed");
  assert.equal(prompts.params?._meta?.[META_KEYS.subscriptionId], "two");
  assert.equal(first.received.length, 2);
  await server.close();
  assert.equal((await first.result).resultType, "complete");
});

test("cancelling a listen stream ends it on the server", async () => {
  const stream = await client.listen({ toolsListChanged: true });
  await stream.cancel("done");
  for (let round = 0; round < 100 && !channels[0]!.closed; round++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(channels[0]!.closed, true);
});

test("a wait that is never satisfied fails with what was missing instead of hanging", async () => {
  await assert.rejects(client.notification("notifications/resources/updated"), /no notifications\/resources\/updated notification within 2000 ms/);
});

test("closing the client fails whatever still waits at once, so no timer holds the process until timeoutMs", { timeout: 30_000 }, async () => {
  const patient = await connectTestClient(server, { timeoutMs: 600_000 });
  const stream = await patient.listen({ toolsListChanged: true });
  const notification = patient.notification("notifications/resources/updated");
  await patient.close();
  await assert.rejects(stream.result, /the test client's transport closed/);
  await assert.rejects(notification, /the test client's transport closed/);
});

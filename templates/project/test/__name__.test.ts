import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { META_KEYS } from "../src/generated/v2607/capabilities.js";
import {
  createTestTransportPair,
  InProcessEventSource,
  type Server,
} from "../src/generated/v2607/runtime/index.js";
import type { AppEvents } from "../src/events.js";
import { createAppServer } from "../src/server.js";
import { TestClient } from "./client.js";

let events: InProcessEventSource<AppEvents>;
let server: Server;
let client: TestClient;

beforeEach(async () => {
  events = new InProcessEventSource<AppEvents>();
  server = createAppServer(events);
  const pair = createTestTransportPair();
  await server.connect(pair.server);
  client = new TestClient(pair.client);
  await client.connect();
});

afterEach(async () => {
  await client.close();
  await server.close();
});

const isAck = (n: Record<string, any>) => n.method === "notifications/subscriptions/acknowledged";
const isToolsChanged = (n: Record<string, any>) => n.method === "notifications/tools/list_changed";

test("server/discover advertises tool list changes", async () => {
  const response = await client.request("server/discover");
  assert.equal(response.result?.capabilities?.tools?.listChanged, true);
});

test("a listener receives tools/list_changed, stamped with its subscription id, when toggle_greet runs", async () => {
  void client.request(
    "subscriptions/listen",
    { notifications: { toolsListChanged: true } },
    "listen-1",
  );
  const ack = await client.notification(isAck);
  assert.equal(ack.params._meta[META_KEYS.subscriptionId], "listen-1");

  const call = await client.request("tools/call", { name: "toggle_greet", arguments: {} });
  assert.equal(call.result?.isError ?? false, false);
  const changed = await client.notification(isToolsChanged);
  assert.equal(changed.params._meta[META_KEYS.subscriptionId], "listen-1");

  const tools = await client.request("tools/list");
  assert.ok(tools.result.tools.some((tool: { name: string }) => tool.name === "greet"));
});

test("cancelling the listen request runs handleClose, which leaves the event source", async () => {
  void client.request(
    "subscriptions/listen",
    { notifications: { toolsListChanged: true } },
    "listen-c",
  );
  await client.notification(isAck);
  assert.equal(events.listenerCount("tools"), 1);
  await client.notify("notifications/cancelled", { requestId: "listen-c" });
  for (let round = 0; round < 100 && events.listenerCount("tools") > 0; round++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.equal(events.listenerCount("tools"), 0);
});

test("closing the server ends an open listen stream with its complete result", async () => {
  const listen = client.request(
    "subscriptions/listen",
    { notifications: { toolsListChanged: true } },
    "listen-2",
  );
  await client.notification(isAck);
  await server.close();
  const response = await listen;
  assert.equal(response.result?.resultType, "complete");
});

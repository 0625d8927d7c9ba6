/**
 * The 1.x SDK client (2025-11-25 only) with its default options, driving the sample demo:
 * list tools, call toggle_greet, and wait for tools/list_changed on the legacy session.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { within } from "../../../cli/scaffold/helpers.js";

/** Connects, lists tools, toggles greet and waits for list_changed; returns the client for closing. */
export async function legacyRoundTrip(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Client> {
  const client = new Client({ name: "sdk-v1", version: "1.0.0" });
  let changed!: () => void;
  const listChanged = new Promise<void>((resolve) => (changed = resolve));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
  await client.connect(transport);
  assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
  assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), ["ask_name", "toggle_greet"]);
  const result = await client.callTool({ name: "toggle_greet", arguments: {} });
  assert.equal((result.content as Array<{ text?: string }>)[0].text, "greet is now available");
  assert.equal(
    await within(
      listChanged.then(() => "heard"),
      15_000,
      "no list_changed within 15 s",
    ),
    "heard",
  );
  assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), ["ask_name", "greet", "toggle_greet"]);
  return client;
}

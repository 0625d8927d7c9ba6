/**
 * Real clients with their default options against one dual-era server: the 1.x SDK client
 * (2025-11-25 only) and the official 2.x client (its default negotiation is legacy), over a
 * real stdio pipe and over Streamable HTTP on 127.0.0.1. Each lists tools, calls one, gets
 * `notifications/tools/list_changed`, subscribes to a resource and gets its update; on HTTP
 * a 2026-07-28 client listens on the same server at the same time and gets its stream.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { EmptyResultSchema, McpError, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { InProcessEventSource } from "../../../packages/runtime/src/index.js";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { createFanoutServer, type FanoutTopics } from "../../support/fanout-app.js";
import { repoRoot } from "../../support/schemas.js";

const FIXTURE = join(repoRoot, "test/runtime/legacy/fixtures/fanout-stdio.ts");
const TOOLS = "notifications/tools/list_changed";
const UPDATED = "notifications/resources/updated";
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
const WAIT_LIMIT_MS = 10_000;
const SLOW = { timeout: 60_000 };

/** Both client generations behind one shape: what the scenario needs of a client. */
interface LegacyClient {
  listTools(): Promise<string[]>;
  fire(args: Record<string, unknown>): Promise<string>;
  subscribe(uri: string): Promise<void>;
  heard: Array<{ method: string; params?: any }>;
  close(): Promise<void>;
}

async function v1Client(transport: StdioV1 | HttpV1): Promise<LegacyClient> {
  const client = new ClientV1({ name: "sdk-v1", version: "1.0.0" });
  const heard: LegacyClient["heard"] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => void heard.push(n));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.push(n));
  await client.connect(transport);
  return {
    listTools: async () => (await client.listTools()).tools.map((tool) => tool.name),
    fire: async (args) => JSON.stringify((await client.callTool({ name: "fire", arguments: args })).content),
    subscribe: async (uri) => void (await client.subscribeResource({ uri })),
    heard,
    close: () => client.close(),
  };
}

async function v2Client(transport: StdioV2 | HttpV2): Promise<LegacyClient> {
  const client = new ClientV2({ name: "client-v2", version: "1.0.0" }); // default options
  const heard: LegacyClient["heard"] = [];
  client.setNotificationHandler(TOOLS, (n) => void heard.push(n));
  client.setNotificationHandler(UPDATED, (n) => void heard.push(n));
  await client.connect(transport);
  return {
    listTools: async () => (await client.listTools()).tools.map((tool) => tool.name),
    fire: async (args) => JSON.stringify((await client.callTool({ name: "fire", arguments: args })).content),
    subscribe: async (uri) => void (await client.subscribeResource({ uri })),
    heard,
    close: () => client.close(),
  };
}

async function heardOf(client: LegacyClient, method: string): Promise<{ method: string; params?: any }> {
  const giveUpAt = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const found = client.heard.find((n) => n.method === method);
    if (found !== undefined) return found;
    if (Date.now() > giveUpAt) throw new Error(`never heard ${method}; heard ${JSON.stringify(client.heard)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The scenario every legacy client goes through. */
async function listCallNotifySubscribe(client: LegacyClient): Promise<void> {
  assert.deepEqual(await client.listTools(), ["fire"]);
  assert.match(await client.fire({ tools: true, prompts: false }), /fired 1 events/);
  await heardOf(client, TOOLS);
  await client.subscribe("file:///watched");
  await client.fire({ tools: false, prompts: false, resourceUris: ["file:///other", "file:///watched"] });
  const updated = await heardOf(client, UPDATED);
  assert.equal(updated.params.uri, "file:///watched");
  assert.equal(updated.params._meta?.[SUBSCRIPTION_ID], undefined);
  assert.equal(client.heard.filter((n) => n.method === UPDATED).length, 1, "nothing for a URI it did not subscribe to");
}

const stdioParams = { command: process.execPath, args: ["--import", "tsx", FIXTURE], cwd: repoRoot, stderr: "pipe" as const };

describe("legacy clients with default options over a real stdio pipe", () => {
  it("the 1.x SDK client lists, calls, hears list_changed and a subscribed resource's update", SLOW, async () => {
    const client = await v1Client(new StdioV1(stdioParams));
    try {
      await listCallNotifySubscribe(client);
    } finally {
      await client.close();
    }
  });

  it("the official 2.x client (default negotiation) does the same", SLOW, async () => {
    const client = await v2Client(new StdioV2(stdioParams));
    try {
      await listCallNotifySubscribe(client);
    } finally {
      await client.close();
    }
  });
});

describe("legacy and modern clients over Streamable HTTP, one server process", () => {
  let handle: HttpServerHandle;
  const server = createFanoutServer(new InProcessEventSource<FanoutTopics>(), "dual-http");
  before(async () => {
    handle = await serveHttp(server);
  });
  after(() => handle?.close());

  it("the 1.x SDK client", SLOW, async () => {
    const transport = new HttpV1(new URL(handle.url));
    const client = await v1Client(transport);
    try {
      await listCallNotifySubscribe(client);
      assert.equal(server.legacySessions.size, 1, "one legacy session");
      await transport.terminateSession(); // HTTP DELETE
      assert.equal(server.legacySessions.size, 0, "DELETE ended the session");
    } finally {
      await client.close();
    }
  });

  it("an error answer in a session travels on HTTP 200: the 1.x client gets the JSON-RPC error and keeps its session", SLOW, async () => {
    const transport = new HttpV1(new URL(handle.url));
    const client = new ClientV1({ name: "sdk-v1", version: "1.0.0" });
    await client.connect(transport);
    try {
      const session = transport.sessionId;
      // A 404 here would tell the client its session is gone; a 400 that the POST was refused.
      const refused = await client.request({ method: "no/such-method", params: {} }, EmptyResultSchema).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(refused instanceof McpError, `a JSON-RPC error, not an HTTP one: ${String(refused)}`);
      assert.equal(refused.code, -32601);
      assert.equal(transport.sessionId, session);
      assert.deepEqual(
        (await client.listTools()).tools.map((tool) => tool.name),
        ["fire"],
        "the session still serves",
      );
    } finally {
      await transport.terminateSession(); // the test after this one counts the sessions open
      await client.close();
    }
  });

  it("the official 2.x client with its defaults, while a 2026-07-28 client listens on the same server", SLOW, async () => {
    const modern = new ClientV2({ name: "modern", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await modern.connect(new HttpV2(new URL(handle.url)));
    const modernHeard: any[] = [];
    modern.setNotificationHandler(TOOLS, (n) => void modernHeard.push(n));
    const subscription = await modern.listen({ toolsListChanged: true });
    const client = await v2Client(new HttpV2(new URL(handle.url)));
    try {
      await listCallNotifySubscribe(client);
      assert.equal(server.legacySessions.size, 1, "the default client opened a legacy session");
      const giveUpAt = Date.now() + WAIT_LIMIT_MS;
      while (modernHeard.length === 0 && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(modernHeard.length, 1, "the modern stream heard the legacy client's fire");
      assert.ok(modernHeard[0].params._meta[SUBSCRIPTION_ID] !== undefined, "stamped with its subscription id");
    } finally {
      await subscription.close();
      await client.close();
      await modern.close();
    }
  });
});

/**
 * The official MCP client (@modelcontextprotocol/client) against a server built on the
 * generated runtime, over a real stdio pipe to a child process.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Client, type JSONRPCMessage } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { repoRoot } from "../../support/schemas.js";

const FIXTURE = join(repoRoot, "test", "runtime", "fixtures", "stdio-server.ts");
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
const ACK = "notifications/subscriptions/acknowledged";
const TOOLS = "notifications/tools/list_changed";
const PROMPTS = "notifications/prompts/list_changed";

type Raw = JSONRPCMessage & { method?: string; id?: string | number; params?: any; result?: any };

async function connectOfficialClient() {
  const transport = new StdioClientTransport({ command: process.execPath, args: ["--import", "tsx", FIXTURE], cwd: repoRoot, stderr: "pipe" });
  const client = new Client({ name: "official-client-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(transport);
  // Every message as it came off the wire, before the client's own routing.
  const wire: Raw[] = [];
  const deliver = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage) => {
    wire.push(message as Raw);
    deliver(message);
  };
  return { client, wire };
}

async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  return (result.content as Array<{ text: string }>)[0].text;
}

describe("the official client over stdio against the generated runtime", () => {
  it(
    "discovers folded capabilities, gets per-stream acks and notifications, a complete result on stop, and handleClose once on cancel",
    { timeout: 60_000 },
    async () => {
      const { client, wire } = await connectOfficialClient();
      try {
        const discovered = await client.discover();
        assert.deepEqual(discovered.capabilities, { tools: { listChanged: true }, prompts: { listChanged: true }, logging: {} });
        assert.deepEqual(discovered.supportedVersions, ["2026-07-28"]);

        const heard: Array<{ method: string; id: unknown }> = [];
        client.setNotificationHandler(TOOLS, (n) => void heard.push({ method: n.method, id: n.params?._meta?.[SUBSCRIPTION_ID] }));
        client.setNotificationHandler(PROMPTS, (n) => void heard.push({ method: n.method, id: n.params?._meta?.[SUBSCRIPTION_ID] }));

        const [toolsSub, promptsSub] = await Promise.all([client.listen({ toolsListChanged: true }), client.listen({ promptsListChanged: true })]);
        assert.deepEqual(toolsSub.honoredFilter, { toolsListChanged: true });
        assert.deepEqual(promptsSub.honoredFilter, { promptsListChanged: true });

        await callTool(client, "fire", { topic: "tools" });
        await callTool(client, "fire", { topic: "prompts" });
        await callTool(client, "stats"); // a round trip: both notifications are on the wire before its answer

        const streams = new Map<unknown, string[]>();
        for (const m of wire) {
          const id = m.params?._meta?.[SUBSCRIPTION_ID];
          if (m.method !== undefined && id !== undefined) streams.set(id, [...(streams.get(id) ?? []), m.method]);
        }
        assert.equal(streams.size, 2, "two streams, each with its own id");
        const byFirst = [...streams.values()].sort((a, b) => a[1].localeCompare(b[1]));
        assert.deepEqual(byFirst, [
          [ACK, PROMPTS],
          [ACK, TOOLS],
        ]);
        assert.equal(heard.length, 2);
        assert.notEqual(heard[0].id, heard[1].id);

        // A cancel (the client's close) is an outside teardown: handleClose once, nothing more sent.
        const toolsId = [...streams].find(([, methods]) => methods.includes(TOOLS))![0] as string;
        await toolsSub.close();
        assert.equal(await toolsSub.closed, "local");
        let stats = JSON.parse(await callTool(client, "stats"));
        for (let round = 0; round < 100 && stats.closes[toolsId] === undefined; round++) stats = JSON.parse(await callTool(client, "stats"));
        assert.deepEqual(stats.closes, { [toolsId]: 1 });

        // A handler { stop } ends the other stream with the complete result.
        await callTool(client, "fire", { topic: "stop" });
        assert.equal(await promptsSub.closed, "graceful");
        const promptsId = [...streams.keys()].find((id) => id !== toolsId);
        const complete = wire.find((m) => m.id === promptsId && m.result !== undefined)!;
        assert.equal(complete.result.resultType, "complete");
        assert.equal(complete.result._meta[SUBSCRIPTION_ID], promptsId);
        stats = JSON.parse(await callTool(client, "stats"));
        assert.deepEqual(stats.closes, { [toolsId]: 1 }, "no handleClose after a stop");
        assert.equal(wire.filter((m) => m.params?._meta?.[SUBSCRIPTION_ID] === toolsId && m.method === TOOLS).length, 1);
      } finally {
        await client.close();
      }
    },
  );
});

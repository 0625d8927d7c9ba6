/**
 * The official MCP client (@modelcontextprotocol/client, Streamable HTTP transport) against
 * a server built on the generated runtime, served by our HTTP transport on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport, type JSONRPCMessage } from "@modelcontextprotocol/client";
import { serveHttp } from "../../../packages/runtime/src/transports/http-server.js";
import { countingApp } from "./http-helpers.js";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
const ACK = "notifications/subscriptions/acknowledged";
const TOOLS = "notifications/tools/list_changed";
const UPDATED = "notifications/resources/updated";

type Raw = JSONRPCMessage & { method?: string; id?: string | number; params?: any; result?: any };

describe("the official client over Streamable HTTP against the generated runtime", () => {
  it(
    "discovers folded capabilities, gets per-stream acks and only what each stream asked for, complete on stop, handleClose once on disconnect",
    { timeout: 60_000 },
    async () => {
      const app = countingApp();
      const handle = await serveHttp(app.server);
      const transport = new StreamableHTTPClientTransport(new URL(handle.url));
      const client = new Client({ name: "official-client-http", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      try {
        await client.connect(transport);
        const wire: Raw[] = [];
        const deliver = transport.onmessage!;
        transport.onmessage = (message: JSONRPCMessage) => {
          wire.push(message as Raw);
          deliver(message);
        };

        const discovered = await client.discover();
        assert.deepEqual(discovered.capabilities, { tools: { listChanged: true }, resources: { subscribe: true }, logging: {} });
        assert.deepEqual(discovered.supportedVersions, ["2026-07-28"]);

        const heard: Array<{ method: string; id: unknown }> = [];
        client.setNotificationHandler(TOOLS, (n) => void heard.push({ method: n.method, id: n.params?._meta?.[SUBSCRIPTION_ID] }));
        client.setNotificationHandler(UPDATED, (n) => void heard.push({ method: n.method, id: n.params?._meta?.[SUBSCRIPTION_ID] }));

        const [toolsSub, resourceSub] = await Promise.all([client.listen({ toolsListChanged: true }), client.listen({ resourceSubscriptions: ["file:///a"] })]);
        assert.deepEqual(toolsSub.honoredFilter, { toolsListChanged: true });
        assert.deepEqual(resourceSub.honoredFilter, { resourceSubscriptions: ["file:///a"] });

        await app.events.publish("tools", {});
        await app.events.publish("resources", { uri: "file:///b" }); // asked for by nobody
        await app.events.publish("resources", { uri: "file:///a" });
        for (let round = 0; round < 500 && heard.length < 2; round++) await new Promise((resolve) => setTimeout(resolve, 10));

        const streams = new Map<unknown, string[]>();
        for (const m of wire) {
          const id = m.params?._meta?.[SUBSCRIPTION_ID];
          if (m.method !== undefined && id !== undefined) streams.set(id, [...(streams.get(id) ?? []), m.method]);
        }
        assert.equal(streams.size, 2, "two streams, each with its own id");
        assert.deepEqual(
          [...streams.values()].sort((a, b) => a[1].localeCompare(b[1])),
          [
            [ACK, UPDATED],
            [ACK, TOOLS],
          ],
        );
        assert.equal(heard.length, 2);
        assert.notEqual(heard[0].id, heard[1].id);
        const updated = wire.find((m) => m.method === UPDATED)!;
        assert.equal(updated.params.uri, "file:///a");

        // Closing the subscription closes its HTTP response: an outside teardown, handleClose once.
        await toolsSub.close();
        assert.equal(await toolsSub.closed, "local");
        await app.closed(1);
        await app.events.publish("tools", {});
        assert.equal(app.counts.handleClose, 1);

        // A handler { stop } ends the other stream with the complete result; no handleClose.
        await app.events.publish("end", {});
        assert.equal(await resourceSub.closed, "graceful");
        const resourceId = [...streams].find(([, methods]) => methods.includes(UPDATED))![0];
        const complete = wire.find((m) => m.id === resourceId && m.result !== undefined)!;
        assert.equal(complete.result.resultType, "complete");
        assert.equal(complete.result._meta[SUBSCRIPTION_ID], resourceId);
        assert.equal(app.counts.handleClose, 1, "no handleClose after a stop");
        assert.equal(wire.filter((m) => m.method === TOOLS).length, 1, "nothing sent on the closed stream");
      } finally {
        await client.close();
        await handle.close();
      }
    },
  );
});

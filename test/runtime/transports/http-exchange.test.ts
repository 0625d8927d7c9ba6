/**
 * One POST as a transport: once something precedes its answer the response is an event
 * stream, and the answer still arrives whole however large, as it would have as JSON.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer } from "../../../packages/runtime/src/index.js";
import { serveHttp } from "../../../packages/runtime/src/transports/http-server.js";
import { mcpHeaders, request } from "./http-helpers.js";

const BIG = "b".repeat(2 * 1024 * 1024);

describe("Streamable HTTP: one POST's answer", () => {
  it("an answer over maxBufferedBytes after a progress notification reaches a client that reads it, whole", { timeout: 60_000 }, async () => {
    const server = createServer({ name: "big", version: "1.0.0" });
    server.addTool({ name: "big", inputSchema: { type: "object" } }, (_args, context) => {
      context.sendProgress({ progress: 1, total: 2 });
      return { content: [{ type: "text", text: BIG }] };
    });
    const handle = await serveHttp(server, { maxBufferedBytes: 256 * 1024 });
    try {
      const message = request(1, "tools/call", { name: "big", arguments: {} });
      message.params._meta = { ...(message.params._meta as object), progressToken: "p" };
      const response = await fetch(handle.url, {
        method: "POST",
        headers: mcpHeaders(message),
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(30_000),
      });
      assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
      const events = (await response.text())
        .split("\n\n")
        .map((event) =>
          event
            .split("\n")
            .filter((line) => line.startsWith("data: "))
            .map((line) => line.slice(6))
            .join("\n"),
        )
        .filter((data) => data.length > 0)
        .map((data) => JSON.parse(data) as { id?: number; method?: string; result?: { content: Array<{ text: string }> } });
      assert.deepEqual(
        events.map((event) => event.method ?? `answer ${event.id}`),
        ["notifications/progress", "answer 1"],
      );
      assert.equal(events[1]!.result?.content[0]!.text.length, BIG.length, "the whole answer");
    } finally {
      await handle.close();
    }
  });
});

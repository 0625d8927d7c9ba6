/**
 * The client's SSE reader and refusals, as a 2025-11-25 server's streams need them: a
 * priming event (an id, empty data) carries no message, the id and retry fields reach the
 * caller, and a 4xx answer that is not the request's own (id null) fails the send.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { HttpClientTransport, sseMessages } from "../../../packages/runtime/src/transports/http-client.js";

function body(text: string): ReadableStream<Uint8Array> {
  return new Response(text).body!;
}

describe("the client's SSE reader and refusals", () => {
  it("an event with empty data is skipped; id and retry fields reach the listener", async () => {
    const ids: string[] = [];
    const retries: number[] = [];
    const messages: string[] = [];
    const stream = body('id: 0-1\nretry: 500\ndata: \n\nid: 0-2\nevent: message\ndata: {"a":1}\n\n: comment\n\n');
    for await (const data of sseMessages(stream, 1024, { id: (id) => ids.push(id), retry: (ms) => retries.push(ms) })) messages.push(data);
    assert.deepEqual(messages, ['{"a":1}']);
    assert.deepEqual(ids, ["0-1", "0-2"]);
    assert.deepEqual(retries, [500]);
  });

  it("a 400 whose JSON body is not the request's answer fails the send with the status", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Bad Request: Server not initialized" }, id: null }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const transport = new HttpClientTransport(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    try {
      await assert.rejects(
        transport.sendMessage({ jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }),
        /^HttpStatusError: HTTP 400 from .*Server not initialized/,
      );
    } finally {
      await transport.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

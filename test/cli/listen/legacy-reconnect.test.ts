/**
 * `mcp-gen listen`'s legacy GET stream is reconnected within a floor and with backoff: a
 * server that asks for `retry: 0` and closes every stream at once is not hammered.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { LEGACY_VERSION } from "../../../generated/index.js";
import { listen, type ListenEvent } from "../../../cli/listen/listen.js";
import { MAX_RETRY_MS, MIN_RETRY_MS, reconnectDelay } from "../../../cli/listen/legacy-http.js";

/** A loopback 2025-11-25 endpoint whose GET stream sends `retry: 0`, one notification, and ends. */
async function closingServer(): Promise<{ url: string; gets: number[]; close: () => Promise<void> }> {
  const gets: number[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.method === "GET") {
      gets.push(Date.now());
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(`retry: 0\nid: ${gets.length}\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n`);
      return;
    }
    if (request.method === "DELETE") return void response.writeHead(200).end();
    let body = "";
    request.setEncoding("utf8").on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const message = JSON.parse(body) as { id?: number; method: string };
      if (message.id === undefined) return void response.writeHead(202).end();
      const result =
        message.method === "initialize"
          ? { protocolVersion: LEGACY_VERSION, capabilities: { tools: { listChanged: true } }, serverInfo: { name: "closing", version: "1" } }
          : {};
      response.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    gets,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("the legacy GET stream's reconnects have a floor and back off", () => {
  it("the wait is the server's retry held within the floor and the ceiling, doubled per early close in a row", () => {
    assert.equal(reconnectDelay(0, 0), MIN_RETRY_MS);
    assert.equal(reconnectDelay(1000, 0), 1000);
    assert.equal(reconnectDelay(0, 1), 2 * MIN_RETRY_MS);
    assert.equal(reconnectDelay(0, 3), 8 * MIN_RETRY_MS);
    assert.equal(reconnectDelay(10 ** 9, 0), MAX_RETRY_MS);
    assert.equal(reconnectDelay(0, 1000), MAX_RETRY_MS);
  });

  it("a server sending retry: 0 and closing every stream is reconnected to a few times in two seconds, each wait longer", { timeout: 30_000 }, async () => {
    const server = await closingServer();
    const stop = new AbortController();
    const events: ListenEvent[] = [];
    try {
      const listening = listen({ target: { url: server.url }, legacy: true, filter: { toolsListChanged: true }, signal: stop.signal }, (event) =>
        events.push(event),
      );
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      stop.abort();
      await listening;
      // Without a floor this is hundreds; with it: waits of 250, 500 and 1000 ms fit.
      assert.ok(server.gets.length >= 2 && server.gets.length <= 4, `${server.gets.length} GET streams in 2 s`);
      const waits = server.gets.slice(1).map((at, index) => at - server.gets[index]!);
      waits.forEach((wait, index) => assert.ok(wait >= MIN_RETRY_MS * 2 ** index - 20, `wait ${index}: ${wait} ms`));
      assert.equal(events.filter((event) => event.kind === "notification").length, server.gets.length);
    } finally {
      stop.abort();
      await server.close();
    }
  });
});

/**
 * The HTTP client against a hostile server (127.0.0.1): what the server sends is bounded
 * (one SSE event, one JSON body) and SSE is parsed in time linear in what arrived.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";
import { type TransportEvent } from "../../../packages/runtime/src/transports/index.js";
import { HttpClientTransport, HttpStreamClosedError, sseMessages } from "../../../packages/runtime/src/transports/http-client.js";
import { meta } from "./http-helpers.js";

const T = { timeout: 20_000 };
const LIMIT = 64 * 1024;
const call = { jsonrpc: "2.0" as const, id: 1, method: "tools/list", params: { _meta: meta() } };

/** A server that answers every POST with `reply`, bounded in size (it stops after `total` bytes). */
function hostile(reply: "sse-no-newline" | "sse-many-lines" | "json-huge", total = 2 * 1024 * 1024): Server {
  return createServer((req, res) => {
    req.resume();
    const piece = "x".repeat(16 * 1024);
    if (reply === "json-huge") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`{"jsonrpc":"2.0","id":1,"result":{"pad":"${"x".repeat(total)}"}}`);
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("event: message\n");
    const line = reply === "sse-no-newline" ? piece : `data: ${piece}\n`;
    for (let sent = 0; sent < total; sent += line.length) res.write(reply === "sse-no-newline" && sent === 0 ? "data: " + line : line);
    res.end();
  });
}

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

function firstError(client: HttpClientTransport): Promise<unknown> {
  return new Promise((resolve) => client.subscribe((event: TransportEvent) => event.type === "error" && resolve(event.error)));
}

describe("HttpClientTransport bounds what a server sends (maxMessageBytes)", () => {
  const servers: Server[] = [];
  after(() => servers.forEach((server) => server.close()));
  async function serve(reply: Parameters<typeof hostile>[0]): Promise<string> {
    const server = hostile(reply);
    servers.push(server);
    return listening(server);
  }

  it("an SSE line that never ends is cut at the limit: the stream fails, naming the limit", T, async () => {
    const client = new HttpClientTransport(await serve("sse-no-newline"), { maxMessageBytes: LIMIT });
    const failed = firstError(client);
    await client.sendMessage(call);
    const error = (await failed) as HttpStreamClosedError;
    assert.ok(error instanceof HttpStreamClosedError);
    assert.match(error.message, new RegExp(`${LIMIT}`));
    await client.close();
  });

  it("an SSE event whose data lines add up past the limit is cut the same way", T, async () => {
    const client = new HttpClientTransport(await serve("sse-many-lines"), { maxMessageBytes: LIMIT });
    const failed = firstError(client);
    await client.sendMessage(call);
    assert.match(((await failed) as Error).message, new RegExp(`${LIMIT}`));
    await client.close();
  });

  it("a JSON answer over the limit is refused without being read whole", T, async () => {
    const client = new HttpClientTransport(await serve("json-huge"), { maxMessageBytes: LIMIT });
    await assert.rejects(client.sendMessage(call), new RegExp(`exceeds ${LIMIT} bytes`));
    await client.close();
  });
});

describe("SSE parsing is linear", () => {
  it("each character of a long event is searched for a newline once", T, async () => {
    const piece = new TextEncoder().encode("y".repeat(1024));
    const pieces = 2000; // one 2 MiB data line in 1 KiB chunks
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode("data: "));
        if (sent++ < pieces) controller.enqueue(piece);
        else {
          controller.enqueue(new TextEncoder().encode("\n\n"));
          controller.close();
        }
      },
    });
    let scanned = 0;
    const indexOf = String.prototype.indexOf;
    String.prototype.indexOf = function (this: string, search: string, from?: number) {
      const found = indexOf.call(this, search, from);
      if (search === "\n") scanned += (found === -1 ? this.length : found + 1) - (from ?? 0);
      return found;
    };
    const events: string[] = [];
    try {
      for await (const data of sseMessages(body, 4 * 1024 * 1024)) events.push(data);
    } finally {
      String.prototype.indexOf = indexOf;
    }
    assert.equal(events.length, 1);
    assert.equal(events[0].length, pieces * 1024);
    const received = pieces * 1024 + 8;
    assert.ok(scanned <= received, `searched ${scanned} characters for ${received} received`);
  });
});

describe("an SSE event is held in memory near its limit, however many lines it takes", () => {
  it("an event of many lines, empty ones among them, is delivered as its lines joined by newlines", T, async () => {
    const values = Array.from({ length: 5000 }, (_, index) => (index % 3 === 0 ? "" : `line ${index}`));
    const wire = `${values.map((value) => `data: ${value}`).join("\n")}\n\ndata:\ndata:\n\n`;
    const bytes = new TextEncoder().encode(wire);
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        controller.enqueue(bytes.subarray(offset, (offset += 777)));
      },
    });
    const events: string[] = [];
    for await (const data of sseMessages(body)) events.push(data);
    assert.deepEqual(events, [values.join("\n"), "\n"]);
  });

  it("millions of empty data lines from a loopback server: the event limit is hit with the heap near that limit", { timeout: 60_000 }, async () => {
    const limit = 16 * 1024 * 1024; // the default: 16 Mi empty data lines reach it
    const chunk = "data:\n".repeat(Math.floor((64 * 1024) / 6));
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream" });
      const pump = (): void => {
        while (!res.destroyed) if (!res.write(chunk)) return void res.once("drain", pump);
      };
      pump();
    });
    const url = await listening(server);
    const base = process.memoryUsage().heapUsed;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed - base)), 5);
    try {
      const response = await fetch(url);
      await assert.rejects(
        (async () => {
          for await (const _ of sseMessages(response.body!, limit)) assert.fail("no event completes");
        })(),
        new RegExp(`an SSE event exceeds ${limit} characters`),
      );
    } finally {
      clearInterval(sampler);
      server.closeAllConnections();
      server.close();
    }
    // One string slot per line would be 128 MiB of slots alone; the text itself is 16 MiB.
    assert.ok(peak < 6 * limit, `heap grew by ${(peak / 2 ** 20).toFixed(0)} MiB for a ${limit / 2 ** 20} MiB event`);
  });
});

/**
 * The client side of Streamable HTTP against our server side over 127.0.0.1: the transport
 * contract's checks that hold for per-POST HTTP (round trip by pull and by push, a closed
 * transport refuses to send, lookup by name and class) plus what is particular to HTTP.
 */
import assert from "node:assert/strict";
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type JsonRpcMessage } from "../../../packages/runtime/src/index.js";
import { getTransport, supportsPush, type TransportEvent } from "../../../packages/runtime/src/transports/index.js";
import { HttpClientTransport, HttpStreamClosedError } from "../../../packages/runtime/src/transports/http-client.js";
import { HttpRedirectError } from "../../../packages/runtime/src/transports/http-redirects.js";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { countingApp, meta, type CountingApp } from "./http-helpers.js";

const T = { timeout: 20_000 };
const listen = (id: number, notifications: Record<string, unknown>): JsonRpcMessage => ({
  jsonrpc: "2.0",
  id,
  method: "subscriptions/listen",
  params: { notifications, _meta: meta() },
});

/** Collects pushed events; `until` waits for a matching one. */
function events(transport: HttpClientTransport) {
  const seen: TransportEvent[] = [];
  const waiters: Array<() => void> = [];
  transport.subscribe((event) => {
    seen.push(event);
    waiters.splice(0).forEach((wake) => wake());
  });
  return {
    seen,
    async until(match: (event: TransportEvent) => boolean): Promise<TransportEvent> {
      for (let round = 0; round < 10_000; round++) {
        const found = seen.find(match);
        if (found) return found;
        await new Promise<void>((wake) => waiters.push(wake));
      }
      throw new Error("gave up waiting");
    },
  };
}

const message = (event: TransportEvent) => (event.type === "message" ? (event.message as any) : undefined);

describe("HTTP client transport", () => {
  let app: CountingApp;
  let handle: HttpServerHandle;

  before(async () => {
    app = countingApp();
    handle = await serveHttp(app.server);
  });
  after(async () => handle.close());

  it("a request's answer is received unchanged (pull)", T, async () => {
    const client = new HttpClientTransport(handle.url);
    await client.connect();
    await client.sendMessage({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "naïve tool", arguments: {}, _meta: meta() } });
    const received = await client.receiveMessage();
    assert.equal((received.message as any).id, 1);
    assert.equal((received.message as any).result.content[0].text, "naïve tool as anonymous", "a non-ASCII name travels Base64-encoded in Mcp-Name");
    await client.close();
  });

  it("a listen stream's messages are pushed as they arrive, ack first", T, async () => {
    const client = new HttpClientTransport(handle.url);
    const got = events(client);
    await client.sendMessage(listen(2, { toolsListChanged: true }));
    assert.equal(message(await got.until((e) => message(e)?.method !== undefined)).method, "notifications/subscriptions/acknowledged");
    await app.events.publish("tools", {});
    const notification = message(await got.until((e) => message(e)?.method === "notifications/tools/list_changed"));
    assert.equal(notification.params._meta["io.modelcontextprotocol/subscriptionId"], 2);
    await client.close();
  });

  it("notifications/cancelled for an open stream closes its response instead of posting: handleClose runs once", T, async () => {
    const client = new HttpClientTransport(handle.url);
    const got = events(client);
    const closesBefore = app.counts.handleClose;
    await client.sendMessage(listen(3, { toolsListChanged: true }));
    await got.until((e) => message(e)?.method === "notifications/subscriptions/acknowledged");
    await client.sendMessage({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } });
    await app.closed(closesBefore + 1);
    const closed = await got.until((e) => e.type === "error");
    assert.ok(closed.type === "error" && closed.error instanceof HttpStreamClosedError);
    assert.equal((closed as { error: HttpStreamClosedError }).error.requestId, 3);
    await client.close();
  });

  it("a stream the server drops before answering is reported with its request id", T, async () => {
    const local = countingApp();
    const server = await serveHttp(local.server);
    const client = new HttpClientTransport(server.url);
    const got = events(client);
    await client.sendMessage(listen(4, { toolsListChanged: true }));
    await got.until((e) => message(e)?.method === "notifications/subscriptions/acknowledged");
    await server.close(); // drops the connection: no complete result
    const dropped = await got.until((e) => e.type === "error");
    assert.equal((dropped as { error: HttpStreamClosedError }).error.requestId, 4);
    await client.close();
  });

  it("an HTTP refusal with a JSON-RPC body is delivered as that error response", T, async () => {
    const client = new HttpClientTransport(handle.url);
    await client.sendMessage({ jsonrpc: "2.0", id: 5, method: "no/such", params: { _meta: meta() } });
    const received = (await client.receiveMessage()).message as any;
    assert.equal(received.id, 5);
    assert.equal(received.error.code, -32601);
    await client.close();
  });

  it("a closed transport refuses to send, says it is not connected, and closes idempotently", T, async () => {
    const client = new HttpClientTransport(handle.url);
    const got = events(client);
    await client.close();
    assert.equal(got.seen.at(-1)?.type, "closed");
    await assert.rejects(client.sendMessage({ jsonrpc: "2.0", id: 6, method: "tools/list", params: { _meta: meta() } }));
    assert.equal(client.connected(), false);
    await client.close();
  });

  it("is found by name and by class, and declares push", () => {
    assert.equal(getTransport("http"), HttpClientTransport);
    assert.equal(getTransport(HttpClientTransport), HttpClientTransport);
    assert.equal(supportsPush(new HttpClientTransport(handle.url)), true);
  });
});

/** A bare node:http server on 127.0.0.1 that records each request it gets (method, path, headers, body). */
async function recordingServer(answer: (request: IncomingMessage, response: ServerResponse, body: string) => void) {
  const received: { method: string; path: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createHttpServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      received.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers, body });
      answer(request, response, body);
    });
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, received, close: () => new Promise<void>((closed) => server.close(() => closed())) };
}

const CREDENTIALS = { "x-api-key": "key-1", authorization: "Bearer token-1", "x-tenant": "tenant-1" };

describe("HTTP client redirects", () => {
  it("a redirect to another origin is not followed: each request fails naming that origin, and the other server receives nothing", T, async () => {
    const elsewhere = await recordingServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"jsonrpc":"2.0","id":2,"result":{}}');
    });
    let sawGet = false;
    const server = await recordingServer((request, response, body) => {
      if (request.method === "POST" && body.includes('"initialize"')) {
        response.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" });
        return void response.end('{"jsonrpc":"2.0","id":1,"result":{}}');
      }
      sawGet ||= request.method === "GET";
      response.writeHead(307, { location: `${elsewhere.origin}/mcp` });
      response.end();
    });
    const client = new HttpClientTransport(`${server.origin}/mcp`, { headers: CREDENTIALS });
    try {
      await client.sendMessage({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
      client.openSessionStream();
      await assert.rejects(client.sendMessage({ jsonrpc: "2.0", id: 2, method: "ping" }), (error: Error) => {
        assert.ok(error instanceof HttpRedirectError);
        assert.equal(error.location, `${elsewhere.origin}/mcp`);
        assert.match(error.message, new RegExp(`redirects \\(HTTP 307\\) to another origin, ${elsewhere.origin}: not followed`));
        return true;
      });
      for (let round = 0; round < 200 && !sawGet; round++) await new Promise((wake) => setTimeout(wake, 10));
      assert.ok(sawGet, "the session's GET stream was asked for");
    } finally {
      await client.close(); // its DELETE is redirected too
      await server.close();
      await elsewhere.close();
    }
    assert.deepEqual(server.received.map((request) => request.method).sort(), ["DELETE", "GET", "POST", "POST"]);
    assert.equal(server.received[0]!.headers["x-api-key"], "key-1", "the server itself gets the client's headers");
    assert.deepEqual(elsewhere.received, []);
  });

  it("a redirect within the origin is followed with its method, body and headers, at most maxRedirects in a row", T, async () => {
    const server = await recordingServer((request, response) => {
      if (request.url === "/mcp") {
        response.writeHead(307, { location: "/moved" });
        return void response.end();
      }
      if (request.url === "/loop") {
        response.writeHead(308, { location: "/loop" });
        return void response.end();
      }
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"jsonrpc":"2.0","id":1,"result":{"moved":true}}');
    });
    try {
      const client = new HttpClientTransport(`${server.origin}/mcp`, { headers: CREDENTIALS });
      await client.sendMessage({ jsonrpc: "2.0", id: 1, method: "ping" });
      assert.deepEqual(((await client.receiveMessage()).message as any).result, { moved: true });
      const moved = server.received[1]!;
      assert.deepEqual([moved.method, moved.path, moved.headers["x-api-key"], JSON.parse(moved.body).method], ["POST", "/moved", "key-1", "ping"]);
      await client.close();

      server.received.length = 0;
      const looping = new HttpClientTransport(`${server.origin}/loop`, { maxRedirects: 3 });
      await assert.rejects(
        looping.sendMessage({ jsonrpc: "2.0", id: 1, method: "ping" }),
        /redirected more than 3 times in a row; raise maxRedirects to follow more/,
      );
      assert.equal(server.received.length, 4, "the first request and 3 redirects followed");
      await looping.close();
      assert.throws(
        () => new HttpClientTransport(`${server.origin}/loop`, { maxRedirects: Number.NaN }),
        /^TypeError: maxRedirects must be a whole number, got NaN$/,
      );
    } finally {
      await server.close();
    }
  });
});

/**
 * The client side of Streamable HTTP against our server side over 127.0.0.1: the transport
 * contract's checks that hold for per-POST HTTP (round trip by pull and by push, a closed
 * transport refuses to send, lookup by name and class) plus what is particular to HTTP.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type JsonRpcMessage } from "../../../templates/runtime/index.js";
import { getTransport, supportsPush, type TransportEvent } from "../../../templates/runtime/transports/index.js";
import { HttpClientTransport, HttpStreamClosedError } from "../../../templates/runtime/transports/http-client.js";
import { serveHttp, type HttpServerHandle } from "../../../templates/runtime/transports/http-server.js";
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

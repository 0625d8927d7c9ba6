/**
 * The address `mcp-gen dev --http` serves (cli/dev/http-front.ts), in front of servers on
 * 127.0.0.1 standing for the project's: plain node:http ones for a server dying in the
 * middle of an answer and for none running, and two of this runtime for a listen stream
 * carried from one to the next as a reload does.
 */
import assert from "node:assert/strict";
import { createServer, request, type Server } from "node:http";
import { test } from "node:test";
import { DEFAULT_FRONT_LIMITS, DevFront } from "../../../cli/dev/http-front.js";
import { serveHttp } from "../../../packages/runtime/src/transports/http-server.js";
import { countingApp, mcpHeaders, meta, openListen } from "../../runtime/transports/http-helpers.js";

const T = { timeout: 20_000 };

async function listening(server: Server): Promise<URL> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`);
}

/** One GET through the front: its status and body once it ends, or how it failed; bounded. */
function get(url: URL): Promise<{ status?: number; body?: string; failed?: string }> {
  return new Promise((resolve) => {
    const sent = request(url, { timeout: 10_000 }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      response.once("end", () => resolve({ status: response.statusCode, body }));
      response.once("error", (error) => resolve({ failed: error.message }));
    });
    sent.once("timeout", () => sent.destroy(new Error("no end within 10 s")));
    sent.once("error", (error) => resolve({ failed: error.message }));
    sent.end();
  });
}

test("a server that dies in the middle of an answer cuts the client's response too, which is never left hanging", T, async () => {
  const dying = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("event: message\ndata: {}\n\n", () => res.socket?.destroy());
  });
  const front = new DevFront();
  try {
    front.serve(await listening(dying));
    const address = await listening(front.server);
    const outcome = await get(address);
    assert.ok(outcome.failed !== undefined, `the response was cut: ${JSON.stringify(outcome)}`);
    assert.doesNotMatch(outcome.failed, /no end within/);
  } finally {
    front.close();
    dying.close();
  }
});

test("a request sent while no server runs waits for the next one, bounded; after a server exited, it is refused naming how", T, async () => {
  const answering = createServer((_req, res) => res.end("answered"));
  const front = new DevFront({ ...DEFAULT_FRONT_LIMITS, waitMs: 5_000 });
  try {
    const address = await listening(front.server);
    const waiting = get(address);
    await new Promise((resolve) => setTimeout(resolve, 200));
    front.serve(await listening(answering));
    assert.deepEqual(await waiting, { status: 200, body: "answered" });

    front.down("the server exited (code 1)");
    const refused = await get(address);
    assert.equal(refused.status, 503);
    assert.match(refused.body ?? "", /the server exited \(code 1\)/);
  } finally {
    front.close();
    answering.close();
  }
});

test("a listen stream is carried from one server to the next: the client keeps its one response, hears the list change instead of a second acknowledgement, then what the new server sends", T, async () => {
  const first = countingApp();
  const second = countingApp();
  const firstHttp = await serveHttp(first.server);
  const secondHttp = await serveHttp(second.server);
  const front = new DevFront();
  try {
    front.serve(new URL(firstHttp.url));
    const address = await listening(front.server);
    const stream = await openListen(address.href, "listen-1", { toolsListChanged: true });
    assert.equal(stream.status, 200);
    const subscription = { "io.modelcontextprotocol/subscriptionId": "listen-1" };
    const ack = await stream.next();
    assert.equal(ack.method, "notifications/subscriptions/acknowledged");
    assert.deepEqual(ack.params.notifications, { toolsListChanged: true });

    front.reload();
    await first.closed(1); // the first server saw the stream leave
    front.serve(new URL(secondHttp.url));
    assert.deepEqual(await stream.next(), { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: subscription } });
    second.events.publish("tools", {});
    const relayed = await stream.next();
    assert.equal(relayed.method, "notifications/tools/list_changed");
    assert.deepEqual(relayed.params._meta, subscription);
    assert.equal(second.counts.subscribe, 1);

    second.events.publish("end", {});
    const closing = await stream.next();
    assert.equal(closing.id, "listen-1", "the second server's close reaches the client, and ends its stream");
    assert.equal(await stream.next(), undefined);
  } finally {
    front.close();
    await firstHttp.close();
    await secondHttp.close();
  }
});

test("a held listen stream gets keep-alive comments of its own, since the server's are not relayed", T, async () => {
  const app = countingApp();
  const http = await serveHttp(app.server);
  const front = new DevFront({ ...DEFAULT_FRONT_LIMITS, keepAliveMs: 50 });
  const abort = new AbortController();
  try {
    front.serve(new URL(http.url));
    const address = await listening(front.server);
    const message = { jsonrpc: "2.0", id: "listen-1", method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: meta() } };
    const response = await fetch(address, { method: "POST", headers: mcpHeaders(message), body: JSON.stringify(message), signal: AbortSignal.any([abort.signal, AbortSignal.timeout(5_000)]) });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    for (let chunks = 0; chunks < 100 && !text.includes(": keep-alive\n\n"); chunks++) text += (await reader.read()).value ?? "";
    assert.match(text, /: keep-alive\n\n/);
  } finally {
    abort.abort();
    front.close();
    await http.close();
  }
});

import assert from "node:assert/strict";
import { createServer as createNodeServer, type Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { createHttpHandler, HttpAuthError, serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { countingApp, meta, mcpHeaders, openListen, post, request, type CountingApp, type OpenStream } from "./http-helpers.js";

const T = { timeout: 20_000 };

describe("Streamable HTTP: bad input is refused and the server keeps serving", () => {
  let app: CountingApp;
  let handle: HttpServerHandle;
  let watcher: OpenStream;

  before(async () => {
    app = countingApp();
    handle = await serveHttp(app.server, { maxBodyBytes: 64 * 1024 });
    watcher = await openListen(handle.url, "watcher", { toolsListChanged: true });
    assert.equal((await watcher.next()).method, "notifications/subscriptions/acknowledged");
  });

  after(async () => {
    watcher.close();
    await handle.close();
  });

  /** After each refusal, the stream opened before it still gets its notifications. */
  async function otherStreamStillServed(): Promise<void> {
    await app.events.publish("tools", {});
    const frame = await watcher.next();
    assert.equal(frame?.method, "notifications/tools/list_changed");
    assert.equal(frame.params._meta["io.modelcontextprotocol/subscriptionId"], "watcher");
  }

  it("malformed JSON: 400 with a parse error (-32700)", T, async () => {
    const response = await fetch(handle.url, { method: "POST", headers: mcpHeaders({}), body: '{"jsonrpc": "2.0", "id": 1,' });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: { code: number } }).error.code, -32700);
    await otherStreamStillServed();
  });

  it("a JSON array (batch): 400 with -32600", T, async () => {
    const response = await fetch(handle.url, { method: "POST", headers: mcpHeaders({}), body: JSON.stringify([request(1, "tools/list")]) });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: { code: number } }).error.code, -32600);
    await otherStreamStillServed();
  });

  it("missing _meta: 400 with -32602 carrying the request id", T, async () => {
    const message = { jsonrpc: "2.0", id: 11, method: "tools/list", params: {} };
    const { status, body } = await post(handle.url, message, { "mcp-protocol-version": "2026-07-28" });
    assert.equal(status, 400);
    assert.equal(body.error.code, -32602);
    assert.equal(body.id, 11);
    await otherStreamStillServed();
  });

  it("an unsupported version (header and body agree): 400 with -32022, supported and requested", T, async () => {
    const message = { jsonrpc: "2.0", id: 12, method: "tools/list", params: { _meta: meta({ "io.modelcontextprotocol/protocolVersion": "2099-01-01" }) } };
    const { status, body } = await post(handle.url, message);
    assert.equal(status, 400);
    assert.equal(body.error.code, -32022);
    assert.deepEqual(body.error.data, { supported: ["2026-07-28"], requested: "2099-01-01" });
    await otherStreamStillServed();
  });

  it("headers that disagree with the body: 400 with -32020", T, async () => {
    const mismatches: Array<Record<string, string>> = [{ "mcp-method": "prompts/list" }, { "mcp-protocol-version": "2099-01-01" }, { "mcp-name": "other" }];
    for (const headers of mismatches) {
      const { status, body } = await post(handle.url, request(13, "tools/call", { name: "echo", arguments: {} }), headers);
      assert.equal(status, 400, JSON.stringify(headers));
      assert.equal(body.error.code, -32020);
      assert.equal(body.id, 13);
    }
    await otherStreamStillServed();
  });

  it("a disallowed Origin: 403; a localhost one is served", T, async () => {
    assert.equal((await post(handle.url, request(14, "tools/list"), { origin: "https://evil.example" })).status, 403);
    assert.equal((await post(handle.url, request(15, "tools/list"), { origin: "http://localhost:8080" })).status, 200);
    await otherStreamStillServed();
  });

  it("an oversized body: 413 and nothing parsed", T, async () => {
    const message = request(16, "tools/call", { name: "echo", arguments: { blob: "x".repeat(100 * 1024) } });
    const { status, body } = await post(handle.url, message);
    assert.equal(status, 413);
    assert.equal(body.id, null, "the request id was never read");
    await otherStreamStillServed();
  });

  it(
    "DELETE, and a GET not asking for an event stream by name: 405 with Allow: POST (one that asks opens an HTTP+SSE stream, sse-endpoint.test.ts)",
    T,
    async () => {
      for (const [method, accept] of [
        ["GET", "application/json"],
        ["GET", "*/*"],
        ["DELETE", "text/event-stream"],
      ] as const) {
        const response = await fetch(handle.url, { method, headers: { accept } });
        assert.equal(response.status, 405);
        assert.equal(response.headers.get("allow"), "POST");
        await response.arrayBuffer();
      }
      await otherStreamStillServed();
    },
  );

  it("a listen filter with wrong types: 400 with -32602, no stream, no subscribe call", T, async () => {
    const before = app.counts.subscribe;
    for (const notifications of [{ toolsListChanged: "yes" }, { resourceSubscriptions: "file:///x" }, { resourceSubscriptions: [1, 2] }]) {
      const { status, body } = await post(handle.url, request(17, "subscriptions/listen", { notifications }));
      assert.equal(status, 400, JSON.stringify(notifications));
      assert.equal(body.error.code, -32602);
    }
    assert.equal(app.counts.subscribe, before);
    await otherStreamStillServed();
  });

  it("an unknown method: 404 with -32601", T, async () => {
    const { status, body } = await post(handle.url, request(18, "ping"));
    assert.equal(status, 404);
    assert.equal(body.error.code, -32601);
    await otherStreamStillServed();
  });

  it("a body that is a JSON string holding a request: 400 with -32600, nothing executed", T, async () => {
    const inner = request(19, "subscriptions/listen", { notifications: { toolsListChanged: true } });
    const before = app.counts.subscribe;
    const response = await fetch(handle.url, { method: "POST", headers: mcpHeaders(inner), body: JSON.stringify(JSON.stringify(inner)) });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: { code: number } }).error.code, -32600);
    assert.equal(app.counts.subscribe, before, "the request inside the string never ran");
    await otherStreamStillServed();
  });

  it("a client must not POST JSON-RPC responses: 400 with a JSON-RPC error", T, async () => {
    for (const answer of [
      { jsonrpc: "2.0", id: 5, result: {} },
      { jsonrpc: "2.0", id: 6, error: { code: -32601, message: "no" } },
    ]) {
      const { status, body } = await post(handle.url, answer);
      assert.equal(status, 400, JSON.stringify(answer));
      assert.equal(body.error.code, -32600);
    }
    await otherStreamStillServed();
  });

  it("a notification is accepted with 202 and no body", T, async () => {
    const response = await fetch(handle.url, {
      method: "POST",
      headers: mcpHeaders({ method: "notifications/cancelled" }),
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "nothing-open" } }),
    });
    assert.equal(response.status, 202);
    assert.equal(await response.text(), "");
    await otherStreamStillServed();
  });
});

describe("Streamable HTTP: streams", () => {
  it("a listen stream is SSE with X-Accel-Buffering: no, ack first, then stamped notifications", T, async () => {
    const app = countingApp();
    const handle = await serveHttp(app.server);
    try {
      const stream = await openListen(handle.url, 1, { toolsListChanged: true });
      assert.equal(stream.status, 200);
      assert.match(stream.headers.get("content-type") ?? "", /^text\/event-stream/);
      assert.equal(stream.headers.get("x-accel-buffering"), "no");
      const ack = await stream.next();
      assert.equal(ack.method, "notifications/subscriptions/acknowledged");
      assert.deepEqual(ack.params.notifications, { toolsListChanged: true });
      await app.events.publish("tools", {});
      assert.equal((await stream.next()).params._meta["io.modelcontextprotocol/subscriptionId"], 1);
      stream.close();
    } finally {
      await handle.close();
    }
  });

  it("keep-alive comments flow on an idle stream when configured", T, async () => {
    const app = countingApp();
    const handle = await serveHttp(app.server, { keepAliveMs: 10 });
    try {
      const response = await fetch(handle.url, {
        method: "POST",
        headers: mcpHeaders(request(1, "subscriptions/listen", { notifications: { toolsListChanged: true } })),
        body: JSON.stringify(request(1, "subscriptions/listen", { notifications: { toolsListChanged: true } })),
      });
      const reader = response.body!.getReader();
      let text = "";
      for (let reads = 0; reads < 1000 && !text.includes(": keep-alive"); reads++) text += new TextDecoder().decode((await reader.read()).value);
      assert.match(text, /\n: keep-alive\n\n/);
      await reader.cancel();
    } finally {
      await handle.close();
    }
  });

  it("{ stop } from the handler ends the HTTP response with the complete result and no handleClose", T, async () => {
    const app = countingApp();
    const handle = await serveHttp(app.server);
    try {
      const stream = await openListen(handle.url, 9, { toolsListChanged: true });
      await stream.next();
      await app.events.publish("end", {});
      const last = await stream.next();
      assert.equal(last.id, 9);
      assert.equal(last.result.resultType, "complete");
      assert.equal(last.result._meta["io.modelcontextprotocol/subscriptionId"], 9);
      assert.equal(await stream.next(), undefined, "the response ended");
      assert.equal(app.counts.handleClose, 0);
    } finally {
      await handle.close();
    }
  });
});

describe("Streamable HTTP: authentication and mounting", () => {
  it("the authenticate hook puts the principal into channel.meta and the request context; subscribe can refuse", T, async () => {
    const app = countingApp();
    const handle = await serveHttp(app.server, {
      authenticate: (req) => {
        const user = req.headers.authorization?.replace(/^Bearer /, "");
        if (user === undefined) throw new HttpAuthError("missing bearer token", 401, 'Bearer realm="mcp"');
        return user;
      },
    });
    try {
      const anonymous = await post(handle.url, request(1, "tools/list"));
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers.get("www-authenticate"), 'Bearer realm="mcp"');
      const called = await post(handle.url, request(2, "tools/call", { name: "who", arguments: {} }), { authorization: "Bearer alice" });
      assert.equal(called.body.result.content[0].text, "who as alice");
      const refused = await post(handle.url, request(3, "subscriptions/listen", { notifications: { toolsListChanged: true } }), {
        authorization: "Bearer mallory",
      });
      assert.ok(refused.body.error, "mallory's listen is refused with an error response, no ack");
      const forged = request(4, "tools/call", { name: "who", arguments: {} });
      (forged.params._meta as Record<string, unknown>).principal = "root";
      const result = await post(handle.url, forged, { authorization: "Bearer alice" });
      assert.equal(result.body.result.content[0].text, "who as alice", "a client cannot claim a principal in _meta");
    } finally {
      await handle.close();
    }
  });

  it("createHttpHandler mounts inside an existing node:http server", T, async () => {
    const app = countingApp();
    const mcp = createHttpHandler(app.server);
    const server: NodeServer = createNodeServer((req, res) => {
      if (req.url === "/health") return void res.end("ok");
      mcp(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/anything`;
    try {
      const { status, body } = await post(url, request(1, "tools/list"));
      assert.equal(status, 200);
      assert.deepEqual(body.result.tools, []);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

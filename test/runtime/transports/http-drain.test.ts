import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer } from "../../../packages/runtime/src/index.js";
import { serveHttp } from "../../../packages/runtime/src/transports/http-server.js";
import { openListen, post, request } from "./http-helpers.js";

const T = { timeout: 20_000 };

/** A server with one tool that answers only when `release` is called. */
function slowToolServer() {
  const server = createServer({ name: "drain", version: "1.0.0" });
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let started = () => {};
  const running = new Promise<void>((resolve) => (started = resolve));
  server.addTool({ name: "slow", inputSchema: { type: "object" } }, async () => {
    started();
    await released;
    return { content: [{ type: "text", text: "done" }] };
  });
  return { server, release, running };
}

const callSlow = (id: number) => request(id, "tools/call", { name: "slow", arguments: {} });

describe("readiness and drain over HTTP", () => {
  it("/healthz answers 200 while the process serves; /readyz 200 while ready, 503 once drain() is called", T, async () => {
    const { server } = slowToolServer();
    const handle = await serveHttp(server);
    const origin = new URL(handle.url).origin;
    try {
      assert.equal((await fetch(`${origin}/healthz`)).status, 200);
      assert.equal((await fetch(`${origin}/readyz`)).status, 200);
      handle.drain();
      const ready = await fetch(`${origin}/readyz`);
      assert.equal(ready.status, 503);
      assert.equal(await ready.text(), "not ready\n");
      assert.equal(ready.headers.get("connection"), "close", "a draining server lets its keep-alive clients go");
      assert.equal((await fetch(`${origin}/healthz`)).status, 200, "still alive while draining");
      const served = await post(handle.url, request(1, "tools/list"));
      assert.equal(served.status, 200, "a draining server still serves requests");
      assert.equal((await fetch(`${origin}/readyz`, { method: "POST" })).status, 405);
    } finally {
      await handle.close();
    }
  });

  it("/readyz follows the ready option: 503 while it says false", T, async () => {
    let brokerUp = false;
    const handle = await serveHttp(slowToolServer().server, { ready: () => brokerUp });
    const readyz = `${new URL(handle.url).origin}/readyz`;
    try {
      assert.equal((await fetch(readyz)).status, 503);
      brokerUp = true;
      assert.equal((await fetch(readyz)).status, 200);
    } finally {
      await handle.close();
    }
  });

  it("/readyz stays 200 while the process is degraded, its body naming each part it serves without; drain() still makes it 503", T, async () => {
    let degraded: string[] = ["redis"];
    const handle = await serveHttp(slowToolServer().server, { degraded: () => degraded });
    const readyz = `${new URL(handle.url).origin}/readyz`;
    try {
      const during = await fetch(readyz);
      assert.equal(during.status, 200, "a degraded process still takes work");
      assert.equal(await during.text(), "degraded: redis\n");
      degraded = [];
      assert.equal(await (await fetch(readyz)).text(), "ok\n", "whole again");
      degraded = ["redis", "tasks"];
      handle.drain();
      const draining = await fetch(readyz);
      assert.equal(draining.status, 503);
      assert.equal(await draining.text(), "not ready\n");
    } finally {
      await handle.close();
    }
  });

  it("close({ graceMs }): a running request is answered, listen streams end with their complete result", T, async () => {
    const { server, release, running } = slowToolServer();
    const handle = await serveHttp(server);
    try {
      const stream = await openListen(handle.url, "watch", { toolsListChanged: true });
      assert.equal((await stream.next()).method, "notifications/subscriptions/acknowledged");
      const answer = post(handle.url, callSlow(2));
      await running;
      const closed = server.close({ graceMs: 10_000 });
      const complete = await stream.next();
      assert.equal(complete.id, "watch", "the listen stream ends with its complete result at once");
      assert.equal(await stream.next(), undefined);
      // A POST reaching a closing server is refused before anything is done: retry elsewhere.
      const late = await post(handle.url, callSlow(3));
      assert.equal(late.status, 503);
      assert.equal(late.headers.get("retry-after"), "1");
      assert.equal(late.body.id, 3);
      release();
      const { status, body } = await answer;
      assert.equal(status, 200);
      assert.equal(body.result.content[0].text, "done", "the request running at close was answered");
      await closed;
    } finally {
      await handle.close();
    }
  });

  it("close() without a grace answers a running request 503 at once, as before", T, async () => {
    const { server, release, running } = slowToolServer();
    const handle = await serveHttp(server);
    try {
      const answer = post(handle.url, callSlow(4));
      await running;
      await server.close();
      assert.equal((await answer).status, 503);
      release();
    } finally {
      await handle.close();
    }
  });

  it("close({ graceMs }) waits no longer than the grace for a request that never ends", T, async () => {
    const { server, release, running } = slowToolServer();
    const handle = await serveHttp(server);
    try {
      const answer = post(handle.url, callSlow(5));
      await running;
      const before = Date.now();
      await server.close({ graceMs: 300 });
      const waited = Date.now() - before;
      assert.ok(waited >= 250 && waited < 5000, `waited ${waited} ms`);
      assert.equal((await answer).status, 503);
      release();
    } finally {
      await handle.close();
    }
  });
});

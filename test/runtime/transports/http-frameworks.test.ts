/**
 * The Express and Hono adapters with the real libraries on loopback: a listen stream is
 * acknowledged and gets its notification, a request is answered, and the endpoint's checks
 * hold (a foreign Origin is refused), through each router.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import type { Server as NodeServer } from "node:http";
import { describe, it } from "node:test";
import express from "express";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import { toExpressMiddleware, toHonoHandler } from "../../../packages/runtime/src/transports/index.js";
import { countingApp, openListen, post, request, type CountingApp } from "./http-helpers.js";

const T = { timeout: 20_000 };

async function listening(server: NodeServer): Promise<string> {
  if (!server.listening) await new Promise<void>((ready) => server.once("listening", ready));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

function close(server: NodeServer): Promise<void> {
  server.closeAllConnections();
  return new Promise((closed) => server.close(() => closed()));
}

/** What each adapter must serve the same way. */
async function servesTheEndpoint(app: CountingApp, url: string): Promise<void> {
  const discover = await post(url, request(1, "server/discover"));
  assert.equal(discover.status, 200);
  assert.ok(discover.body.result.supportedVersions.includes("2026-07-28"));
  const foreign = await post(url, request(2, "server/discover"), { origin: "https://evil.example" });
  assert.equal(foreign.status, 403);
  const stream = await openListen(url, "w", { toolsListChanged: true });
  try {
    assert.equal((await stream.next()).method, "notifications/subscriptions/acknowledged");
    await app.events.publish("tools", {});
    assert.equal((await stream.next()).method, "notifications/tools/list_changed");
  } finally {
    stream.close();
  }
  await app.closed(1);
}

describe("Express and Hono adapters", () => {
  it("toExpressMiddleware serves the endpoint as Express middleware", T, async () => {
    const app = countingApp();
    const router = express();
    router.all("/mcp", toExpressMiddleware(app.server));
    const server = router.listen(0, "127.0.0.1");
    try {
      await servesTheEndpoint(app, await listening(server));
    } finally {
      await close(server);
    }
  });

  it("toExpressMiddleware after express.json() serves the body that parser read", T, async () => {
    const app = countingApp();
    const router = express();
    router.use(express.json());
    router.post("/mcp", toExpressMiddleware(app.server));
    const server = router.listen(0, "127.0.0.1");
    try {
      const url = await listening(server);
      const answer = await post(url, request(3, "server/discover"));
      assert.equal(answer.status, 200);
      assert.equal(answer.body.id, 3);
    } finally {
      await close(server);
    }
  });

  it("toHonoHandler serves the endpoint as a Hono route (on @hono/node-server)", T, async () => {
    const app = countingApp();
    const router = new Hono();
    router.all("/mcp", toHonoHandler(app.server));
    const server = serve({ fetch: router.fetch, hostname: "127.0.0.1", port: 0 }) as NodeServer;
    try {
      await servesTheEndpoint(app, await listening(server));
    } finally {
      await close(server);
    }
  });
});

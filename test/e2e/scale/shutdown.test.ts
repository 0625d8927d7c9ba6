import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { StreamableHTTPClientTransport, type Client } from "@modelcontextprotocol/client";
import { eventually } from "../../support/eventually.js";
import { officialClient as newClient } from "./fanout-process.js";
import { ChildStdioTransport, scaffoldProject, servedUrl, startProject, type ScaffoldedProject, type StartedServer } from "./scaffolded.js";

/** Opens `count` tools listen streams on `client` and returns how each one ended. */
async function openStreams(client: Client, count: number): Promise<Array<Promise<string>>> {
  const ended: Array<Promise<string>> = [];
  for (let i = 0; i < count; i++) {
    const subscription = await client.listen({ toolsListChanged: true });
    ended.push(subscription.closed);
  }
  return ended;
}

describe("graceful shutdown of a scaffolded server", { timeout: 180_000 }, () => {
  let project: ScaffoldedProject;
  const running: StartedServer[] = [];

  before(() => {
    project = scaffoldProject(["--transport", "both"]);
  });
  after(() => {
    for (const server of running) if (server.child.exitCode === null) server.child.kill("SIGKILL");
    project?.remove();
  });

  test("SIGTERM over HTTP: every client's open listen streams end with their complete result, then exit 0", async () => {
    const server = startProject(project, ["--http"], { PORT: "0" });
    running.push(server);
    const url = await servedUrl(server);
    const clients = [newClient("first"), newClient("second")];
    const ended: Array<Promise<string>> = [];
    for (const client of clients) {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      ended.push(...(await openStreams(client, 2)));
    }
    // The streams work before the signal: a tool call reaches all four.
    let changed = 0;
    for (const client of clients) client.setNotificationHandler("notifications/tools/list_changed", () => void changed++);
    await clients[0]!.callTool({ name: "toggle_greet", arguments: {} });
    assert.ok(await eventually(() => changed === 4), `got ${changed} of 4 notifications`);

    server.child.kill("SIGTERM");
    assert.deepEqual(await Promise.all(ended), ["graceful", "graceful", "graceful", "graceful"]);
    assert.equal(await server.exited, 0, server.stderr());
    assert.match(server.stderr(), /shutting down \(SIGTERM\)/);
  });

  test("SIGTERM over HTTP: /readyz turns 503 at once, /healthz stays 200 and calls are still served during SHUTDOWN_DELAY_MS", async () => {
    const server = startProject(project, ["--http"], { PORT: "0", SHUTDOWN_DELAY_MS: "3000" });
    running.push(server);
    const url = await servedUrl(server);
    const origin = new URL(url).origin;
    const client = newClient("drain");
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    assert.equal((await fetch(`${origin}/readyz`)).status, 200);
    const ended = await openStreams(client, 1);

    const signalled = Date.now();
    server.child.kill("SIGTERM");
    assert.ok(await eventually(async () => (await fetch(`${origin}/readyz`)).status === 503), "not ready right after the signal");
    assert.equal((await fetch(`${origin}/healthz`)).status, 200, "alive while draining");
    const result = await client.callTool({ name: "toggle_greet", arguments: {} });
    assert.equal(result.isError ?? false, false, "a call during the drain delay is served");
    assert.equal(
      await Promise.race([ended[0], new Promise((resolve) => setTimeout(() => resolve("open"), 500))]),
      "open",
      "streams stay open during the delay",
    );
    assert.deepEqual(await Promise.all(ended), ["graceful"]);
    assert.ok(Date.now() - signalled >= 2500, "the stream ended only after the delay");
    assert.equal(await server.exited, 0, server.stderr());
  });

  test("SIGTERM over stdio: the client's open listen streams end with their complete result, then exit 0", async () => {
    const server = startProject(project, ["--stdio"]);
    running.push(server);
    const client = newClient("stdio");
    await client.connect(new ChildStdioTransport(server.child));
    const ended = await openStreams(client, 2);

    server.child.kill("SIGTERM");
    assert.deepEqual(await Promise.all(ended), ["graceful", "graceful"]);
    assert.equal(await server.exited, 0, server.stderr());
  });

  test("SIGINT is handled the same way", async () => {
    const server = startProject(project, ["--http"], { PORT: "0" });
    running.push(server);
    const client = newClient("sigint");
    await client.connect(new StreamableHTTPClientTransport(new URL(await servedUrl(server))));
    const ended = await openStreams(client, 1);
    server.child.kill("SIGINT");
    assert.deepEqual(await Promise.all(ended), ["graceful"]);
    assert.equal(await server.exited, 0, server.stderr());
  });
});

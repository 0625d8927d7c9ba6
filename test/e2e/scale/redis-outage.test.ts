import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { createClient } from "redis";
import { eventually } from "../../support/eventually.js";
import { startRedisServer, type RedisServer } from "../../support/redis-server.js";
import { connectHttpClient } from "./fanout-process.js";
import { startReplicas, type Replicas } from "./replicas.js";
import { isWhole, type ScaffoldedProject, scaffoldProject } from "./scaffolded.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One tool call: when it was sent and answered, and whether it succeeded (its publish was acknowledged). */
interface Call {
  readonly start: number;
  readonly end: number;
  readonly ok: boolean;
}

/** One listen stream from its request to its end, and the notifications it got meanwhile. */
interface Epoch {
  /** When the listen request was sent: the server subscribed after this, so a publish may reach the stream from here on. */
  readonly requestedAt: number;
  /** When the client had the ack: the server subscribed before this, so a publish must reach the stream from here on. */
  readonly ackAt: number;
  endAt: number | undefined;
  received: number;
}

/** A listen stream on one replica, listened to again whenever it ends; its epochs kept. */
class Listener {
  readonly epochs: Epoch[] = [];
  #running = true;
  #close = () => {};
  readonly #done: Promise<void>;

  constructor(readonly client: Client) {
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      const current = this.epochs.at(-1);
      if (current !== undefined && current.endAt === undefined) current.received++;
    });
    this.#done = this.#keep();
  }

  async #keep(): Promise<void> {
    while (this.#running) {
      const requestedAt = Date.now();
      try {
        const subscription = await this.client.listen({ toolsListChanged: true });
        const epoch: Epoch = { requestedAt, ackAt: Date.now(), endAt: undefined, received: 0 };
        this.epochs.push(epoch);
        this.#close = () => void subscription.close();
        await subscription.closed;
        epoch.endAt = Date.now();
      } catch {
        await sleep(100); // refused while the replica cannot subscribe: try again
      }
    }
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#close();
    await this.#done;
  }
}

/**
 * Losses and duplicates of one epoch, bounded from what the notifications (which carry no id)
 * allow: every call acknowledged wholly between the ack and the end must be there (else lost),
 * and nothing beyond the calls that overlapped the request-to-end span, and the one notice per
 * resumption that the stream may have missed changes, may be (else duplicated). That span
 * starts at the request, not the ack: a call answered just before the client read the ack may
 * still have published after the server subscribed.
 *
 * A call that overlapped the outage (from `outageAt` until both replicas were ready again) is
 * not counted as expected: its publish may have come before the stream's replica subscribed
 * again, and then the resumption notice, a list change sent after that replica subscribed
 * again, is what tells the client, once for all such calls. Readiness counts the subscriber's
 * connection, and node-redis subscribes again before that connection is ready, so every call
 * that started after `readyAt` must arrive on its own.
 */
function tally(
  epoch: Epoch,
  calls: readonly Call[],
  stoppedAt: number,
  resumptions: number,
  outage: { readonly at: number; readonly readyAt: number },
): { expected: number; lost: number; duplicated: number } {
  const endAt = epoch.endAt ?? stoppedAt;
  const overlapsOutage = (call: Call) => call.end >= outage.at && call.start <= outage.readyAt;
  const expected = calls.filter((call) => call.ok && call.start > epoch.ackAt && call.end < endAt && !overlapsOutage(call)).length;
  const possible = calls.filter((call) => call.end > epoch.requestedAt && call.start < endAt).length + resumptions;
  return { expected, lost: Math.max(0, expected - epoch.received), duplicated: Math.max(0, epoch.received - possible) };
}

describe("Redis restarted mid-stream under scaffolded replicas", { timeout: 240_000 }, () => {
  let redis: RedisServer;
  let project: ScaffoldedProject;
  let replicas: Replicas | undefined;
  const clients: Client[] = [];

  before(async () => {
    redis = await startRedisServer();
    project = scaffoldProject(["--transport", "http", "--event-source", "redis"]);
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await replicas?.stop();
    project?.remove();
    await redis?.stop();
  });

  /** Two replicas, a caller on A at 20 calls/s and listeners on A and B while `outage` runs; the tally. */
  async function measure(
    outage: () => Promise<void>,
  ): Promise<{ calls: Call[]; tallies: Array<ReturnType<typeof tally>>; summary: string; outageAt: number; readyAt: number }> {
    replicas ??= await startReplicas(project, 2, { REDIS_URL: redis.url });
    const urls = replicas.ports.map((port) => `http://127.0.0.1:${port}/mcp`);
    const origins = urls.map((url) => new URL(url).origin);
    const caller = await connectHttpClient(urls[0]!, "caller-on-a");
    clients.push(caller);
    const listeners: Listener[] = [];
    for (const [i, url] of [urls[0]!, urls[1]!, urls[1]!].entries()) {
      const client = await connectHttpClient(url, `listener-${i}`);
      clients.push(client);
      listeners.push(new Listener(client));
    }
    assert.ok(await eventually(() => listeners.every((listener) => listener.epochs.length > 0)), "every listener acknowledged");

    const calls: Call[] = [];
    let calling = true;
    const callLoop = (async () => {
      while (calling) {
        const start = Date.now();
        const result = await caller.callTool({ name: "toggle_greet", arguments: {} }).catch(() => ({ isError: true }));
        calls.push({ start, end: Date.now(), ok: result.isError !== true });
        await sleep(Math.max(0, 50 - (Date.now() - start)));
      }
    })();
    await sleep(1500);
    const outageAt = Date.now();
    await outage();
    const ready = async () => (await Promise.all(origins.map((origin) => isWhole(origin)))).every(Boolean);
    assert.ok(await eventually(ready, 30_000), "both replicas ready again");
    const readyAt = Date.now();
    // Served again: a call made after both were ready is acknowledged (then a little more traffic).
    await eventually(() => calls.some((call) => call.ok && call.start >= readyAt), 20_000);
    await sleep(1000);
    calling = false;
    await callLoop;
    await sleep(500); // the last notifications arrive
    const stoppedAt = Date.now() - 500;
    for (const listener of listeners) await listener.stop();

    // One outage: each stream open through it is told once, when its subscription is back, that it may have missed changes.
    const span = { at: outageAt, readyAt };
    const tallies = listeners.flatMap((listener) => listener.epochs.map((epoch) => tally(epoch, calls, stoppedAt, 1, span)));
    const acked = calls.filter((call) => call.ok).length;
    const sum = (key: "expected" | "lost" | "duplicated") => tallies.reduce((total, one) => total + one[key], 0);
    const received = listeners.flatMap((listener) => listener.epochs).reduce((total, epoch) => total + epoch.received, 0);
    const summary =
      `calls ${calls.length}: acknowledged ${acked}, failed ${calls.length - acked}; streams ${tallies.length} (listened again ${tallies.length - listeners.length}); ` +
      `notifications expected ${sum("expected")}, received ${received}; lost ${sum("lost")}, duplicated ${sum("duplicated")}`;
    return { calls, tallies, summary, outageAt, readyAt };
  }

  const lostOf = (tallies: Array<ReturnType<typeof tally>>) => tallies.reduce((total, one) => total + one.lost, 0);
  const duplicatedOf = (tallies: Array<ReturnType<typeof tally>>) => tallies.reduce((total, one) => total + one.duplicated, 0);

  test("redis restart: no event duplicated, no acknowledged event lost on any open stream", async (t) => {
    const { calls, tallies, summary, outageAt, readyAt } = await measure(async () => {
      await redis.kill();
      await sleep(2000);
      await redis.restart();
    });
    t.diagnostic(summary);
    const acked = calls.filter((call) => call.ok).length;
    assert.ok(acked < calls.length, "the outage was felt: some calls could not publish");
    assert.ok(
      calls.some((call) => call.ok && call.end <= outageAt),
      "calls were served before the outage",
    );
    assert.ok(
      calls.some((call) => call.ok && call.start >= readyAt),
      "calls were served again once both replicas were ready",
    );
    assert.equal(duplicatedOf(tallies), 0, "no event delivered twice");
    assert.equal(lostOf(tallies), 0, "no acknowledged event lost");
  });

  test("subscriber connections dropped while publishers stay up: no stream ends, each is told once it may have missed changes, none loses one", async (t) => {
    const { tallies, summary } = await measure(async () => {
      // Only the pub/sub connections go: publishes keep being acknowledged while they reconnect.
      const admin = createClient({ url: redis.url });
      await admin.connect();
      await admin.sendCommand(["CLIENT", "KILL", "TYPE", "pubsub"]);
      await admin.close();
    });
    t.diagnostic(summary);
    assert.equal(tallies.length, 3, "no stream ended: each went on through its subscriber's reconnection");
    assert.equal(duplicatedOf(tallies), 0, "no event delivered twice");
    assert.equal(lostOf(tallies), 0, "no acknowledged event lost");
  });
});

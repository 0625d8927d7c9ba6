/**
 * SSE polling and resumption of a legacy session's streams (2025-11-25 Streamable HTTP):
 * priming events with an id and `retry`, ids on every event, the server closing a
 * connection without ending its stream, and a GET with `Last-Event-ID` resuming exactly
 * that stream from the session's bounded replay window.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer, InProcessEventSource, type LegacyOptions } from "../../../packages/runtime/src/index.js";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { fanoutHandler, type FanoutTopics } from "../../support/fanout-app.js";
import { deferred } from "../../support/runtime-peer.js";
import { SseReader } from "../../support/sse-events.js";

const INITIALIZE = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "resume", version: "1" } };

function headers(sessionId?: string, extra: Record<string, string> = {}): Record<string, string> {
  return { "content-type": "application/json", accept: "application/json, text/event-stream", ...(sessionId ? { "mcp-session-id": sessionId } : {}), ...extra };
}

async function post(handle: HttpServerHandle, body: unknown, sessionId?: string): Promise<Response> {
  return fetch(handle.url, { method: "POST", headers: headers(sessionId), body: JSON.stringify(body) });
}

function resume(handle: HttpServerHandle, sessionId: string, lastEventId?: string): Promise<Response> {
  const extra: Record<string, string> = lastEventId === undefined ? {} : { "last-event-id": lastEventId };
  return fetch(handle.url, { headers: { accept: "text/event-stream", "mcp-session-id": sessionId, ...extra } });
}

async function initialize(handle: HttpServerHandle): Promise<string> {
  const response = await post(handle, { jsonrpc: "2.0", id: 0, method: "initialize", params: INITIALIZE });
  const id = response.headers.get("mcp-session-id")!;
  await response.json();
  assert.equal((await post(handle, { jsonrpc: "2.0", method: "notifications/initialized" }, id)).status, 202);
  return id;
}

/** A fan-out server (its `fire` tool publishes list changes) plus a tool that closes its stream and answers once released. */
async function start(legacy: LegacyOptions = {}) {
  const events = new InProcessEventSource<FanoutTopics>();
  const server = createServer({ name: "resume", version: "1", legacy });
  server.addSubscriptionHandler(fanoutHandler(events));
  const release = deferred();
  const closed: boolean[] = [];
  server.addTool({ name: "poll_me", description: "closes its stream, then answers", inputSchema: { type: "object" } }, async (_args, context) => {
    closed.push(context.closeSseStream());
    await release.promise;
    return { content: [{ type: "text", text: "answered after the poll" }] };
  });
  const held = deferred();
  const aborted: boolean[] = [];
  server.addTool({ name: "log_then_wait", description: "logs, then answers once released", inputSchema: { type: "object" } }, async (_args, context) => {
    context.sendLog({ level: "info", data: "started" });
    await held.promise;
    aborted.push(context.signal.aborted);
    return { content: [{ type: "text", text: "answered after the client left" }] };
  });
  const handle = await serveHttp(server);
  return { events, server, handle, release, closed, held, aborted };
}

describe("legacy SSE polling and resumption", () => {
  it("a request whose stream the server closes: priming event with id and retry, then the answer on a GET with Last-Event-ID, replayed on a repeat", async () => {
    const { server, handle, release, closed } = await start();
    try {
      const session = await initialize(handle);
      const call = await post(handle, { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "poll_me", arguments: {} } }, session);
      assert.equal(call.headers.get("content-type"), "text/event-stream");
      const posted = await new SseReader(call).rest(); // the server ended the connection
      assert.equal(posted.length, 1, JSON.stringify(posted));
      const [priming] = posted;
      assert.ok(priming!.id, "the priming event has an id");
      assert.equal(priming!.data, "");
      assert.equal(priming!.retry, 1000, "the default retry field");
      assert.deepEqual(closed, [true]);
      // Resumed while the tool still runs: the connection carries the stream when the answer comes.
      const resumed = await resume(handle, session, priming!.id);
      assert.equal(resumed.status, 200);
      const resumedReader = new SseReader(resumed);
      assert.equal((await resumedReader.next())?.data, "", "a priming event first");
      release.resolve();
      const replay = (await resumedReader.rest()).filter((event) => event.data !== "");
      assert.equal(replay.length, 1);
      const answer = JSON.parse(replay[0]!.data);
      assert.equal(answer.id, 7);
      assert.equal(answer.result.content[0].text, "answered after the poll");
      assert.ok(replay[0]!.id && replay[0]!.id !== priming!.id, "the answer has its own id");
      // The answer stays in the window: the same cursor gets it again; a cursor past it gets nothing more.
      const again = (await new SseReader(await resume(handle, session, priming!.id)).rest()).filter((event) => event.data !== "");
      assert.deepEqual(
        again.map((event) => event.data),
        [replay[0]!.data],
      );
      const past = (await new SseReader(await resume(handle, session, replay[0]!.id)).rest()).filter((event) => event.data !== "");
      assert.deepEqual(past, []);
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("a standalone stream the server polls: what it sent while no connection carried it is replayed, and nothing of another stream", async () => {
    const { server, handle, events, release } = await start({ pollAfterMs: 50, retryMs: 20 });
    release.resolve();
    try {
      const session = await initialize(handle);
      const first = await new SseReader(await resume(handle, session)).rest(); // the server ends the connection after 50 ms
      assert.equal(first.length, 1);
      assert.equal(first[0]!.data, "");
      assert.equal(first[0]!.retry, 20);
      await events.publish("tools", { origin: "between connections" });
      // Another stream's events in between (a POST stream the tool closes) are not part of this one.
      const call = await post(handle, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "poll_me", arguments: {} } }, session);
      const callEvents = await new SseReader(call).rest();
      const answer = (await new SseReader(await resume(handle, session, callEvents[0]!.id)).rest()).filter((event) => event.data !== "");
      assert.equal(JSON.parse(answer[0]!.data).id, 3);
      const next = await new SseReader(await resume(handle, session, first[0]!.id)).rest();
      assert.equal(next.at(-1)!.data, "", "each connection is primed, after what it replays");
      const missed = next.filter((event) => event.data !== "");
      assert.equal(missed.length, 1, JSON.stringify(next));
      assert.match(missed[0]!.data, /notifications\/tools\/list_changed/);
      assert.ok(missed[0]!.id!.startsWith("0-"), "an event of the standalone stream");
      // The client polls on from the last id it has.
      await events.publish("prompts", { origin: "later" });
      const later = (await new SseReader(await resume(handle, session, missed[0]!.id)).rest()).filter((event) => event.data !== "");
      assert.deepEqual(
        later.map((event) => JSON.parse(event.data).method),
        ["notifications/prompts/list_changed"],
      );
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("a client that drops a primed POST stream is not cancelling: the request runs on and its answer waits for the resume", async () => {
    const { server, handle, release, held, aborted } = await start();
    release.resolve();
    try {
      const session = await initialize(handle);
      const call = await post(handle, { jsonrpc: "2.0", id: 11, method: "tools/call", params: { name: "log_then_wait", arguments: {} } }, session);
      const reader = new SseReader(call);
      assert.equal((await reader.next())?.data, "", "the stream is primed");
      const log = await reader.next();
      assert.match(log!.data, /notifications\/message/);
      await reader.cancel(); // the client goes away mid-request
      held.resolve();
      // The resume may come before or after the answer: either way it carries the answer.
      const events = (await new SseReader(await resume(handle, session, log!.id)).rest()).filter((event) => event.data !== "");
      assert.equal(JSON.parse(events[0]!.data).id, 11);
      assert.deepEqual(aborted, [false], "the handler was not cancelled");
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("event ids increase in delivery order: a resumed connection's priming event follows the replay, so resuming from it loses nothing", async () => {
    const { server, handle, events, release } = await start({ pollAfterMs: 50 });
    release.resolve();
    try {
      const session = await initialize(handle);
      const [first] = await new SseReader(await resume(handle, session)).rest(); // the server polls after 50 ms
      await events.publish("tools", { origin: "missed 1" });
      await events.publish("prompts", { origin: "missed 2" });
      const resumed = await new SseReader(await resume(handle, session, first!.id)).rest();
      const seqs = resumed.map((event) => Number(event.id!.split("-")[1]));
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
        `ids in delivery order: ${JSON.stringify(resumed)}`,
      );
      assert.equal(resumed.filter((event) => event.data !== "").length, 2);
      // A client that kept only the priming event resumes from there: nothing was skipped, nothing is sent twice.
      const fromPriming = (await new SseReader(await resume(handle, session, resumed.at(-1)!.id)).rest()).filter((event) => event.data !== "");
      assert.deepEqual(fromPriming, []);
    } finally {
      await handle.close();
      await server.close();
    }
  });

  it("a Last-Event-ID this session did not send gets 400; one whose events left the window gets 410 naming the limits", async () => {
    const { server, handle, events, release } = await start({ maxReplayEvents: 2, pollAfterMs: 50 });
    release.resolve();
    try {
      const session = await initialize(handle);
      const bogus = await resume(handle, session, "not-an-id");
      assert.equal(bogus.status, 400);
      assert.match(((await bogus.json()) as any).error.message, /Last-Event-ID "not-an-id" was not sent by this session/);
      assert.equal((await resume(handle, session, "99-1")).status, 400, "a stream the session never opened");
      const [priming] = await new SseReader(await resume(handle, session)).rest();
      for (let i = 0; i < 5; i++) await events.publish("tools", { origin: `burst ${i}` });
      const gone = await resume(handle, session, priming!.id);
      assert.equal(gone.status, 410);
      assert.match(((await gone.json()) as any).error.message, /no longer held .*last 2 events/);
    } finally {
      await handle.close();
      await server.close();
    }
  });
});

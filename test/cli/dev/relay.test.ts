/**
 * The relay of `mcp-gen dev` (cli/dev/relay.ts) between a client, played here line by line,
 * and real servers of this runtime, each served over NDJSON on an in-memory pair as a stdio
 * child would be: the session replayed to a new server, listen streams opened again,
 * requests in flight answered with the reload, and the bounds.
 */
import assert from "node:assert/strict";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { createServer, type Server } from "../../../packages/runtime/src/index.js";
import { NdjsonTransport } from "../../../packages/runtime/src/transports/index.js";
import { DEFAULT_RELAY_LIMITS, DevRelay, type ChildLink, type RelayLimits } from "../../../cli/dev/relay.js";
import { recordingHandler, type Recording } from "../../support/recording-handler.js";
import { LEGACY_INITIALIZE } from "../../support/legacy-peer.js";
import { until } from "../../support/runtime-peer.js";

const MODERN_META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
type Message = Record<string, any>;

/** The client's side: what the relay wrote to it, and what it told the person running it. */
class ClientSide {
  readonly received: Message[] = [];
  readonly logged: string[] = [];
  readonly relay: DevRelay;
  constructor(limits: RelayLimits = DEFAULT_RELAY_LIMITS) {
    this.relay = new DevRelay({ toClient: (line) => this.received.push(JSON.parse(line) as Message), log: (message) => this.logged.push(message) }, limits);
  }
  send(message: Message): void {
    this.relay.fromClient(JSON.stringify({ jsonrpc: "2.0", ...message }));
  }
  async answer(id: unknown): Promise<Message> {
    await until(() => this.received.some((message) => message["id"] === id), `an answer to ${String(id)}`);
    return this.received.find((message) => message["id"] === id)!;
  }
  methods(): string[] {
    return this.received.filter((message) => "method" in message).map((message) => message["method"] as string);
  }
}

interface ServerChild {
  link: ChildLink;
  server: Server;
  recording: Recording;
  stopHanging(): void;
}

/** A server as `mcp-gen dev` runs one: its tool `ask` describes itself with `description`; `hang` never answers until stopped. */
async function serverChild(client: ClientSide, description: string): Promise<ServerChild> {
  const server = createServer({ name: "dev-relay", version: "1" });
  server.addTool({ name: "ask", description, inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: description }] }));
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  server.addTool({ name: "hang", inputSchema: { type: "object" } }, async () => {
    await released;
    return { content: [] };
  });
  const { handler, log } = recordingHandler({ declares: { toolsListChanged: true } });
  server.addSubscriptionHandler(handler);
  const input = new PassThrough();
  const output = new PassThrough();
  await server.connect(new NdjsonTransport({ readable: input, writable: output }));
  const link: ChildLink = { send: (line) => input.write(`${line}\n`) };
  createInterface({ input: output }).on("line", (line) => client.relay.fromChild(link, line));
  return { link, server, recording: log, stopHanging: release };
}

async function closeAll(...children: ServerChild[]): Promise<void> {
  for (const child of children) {
    child.stopHanging();
    await child.server.close();
  }
}

function toolDescription(answer: Message): unknown {
  return answer["result"]?.tools?.find((tool: Message) => tool["name"] === "ask")?.description;
}

test("a 2025-era session is replayed to the new server, which then answers the client's requests, and the client is told the lists its server announced changed", async () => {
  const client = new ClientSide();
  const first = await serverChild(client, "first");
  client.relay.attach(first.link);
  client.send({ id: 1, method: "initialize", params: LEGACY_INITIALIZE });
  assert.deepEqual((await client.answer(1))["result"]?.capabilities?.tools, { listChanged: true });
  client.send({ method: "notifications/initialized" });
  client.send({ id: 2, method: "logging/setLevel", params: { level: "debug" } });
  await client.answer(2);
  client.send({ id: 3, method: "tools/list", params: {} });
  assert.equal(toolDescription(await client.answer(3)), "first");

  const second = await serverChild(client, "second");
  client.relay.detach("the server was reloaded (mcp-gen dev)", true);
  client.relay.attach(second.link);
  client.send({ id: 4, method: "tools/list", params: {} });
  const answer = await client.answer(4);
  assert.equal(toolDescription(answer), "second", JSON.stringify(answer));
  assert.deepEqual(client.methods(), ["notifications/tools/list_changed"], "told once, of the one list its server announces");
  assert.equal(client.received.filter((message) => message["result"]?.protocolVersion !== undefined).length, 1, "the replayed initialize is answered to the relay alone");
  await closeAll(first, second);
});

test("a request in flight when the server is replaced gets an error naming the reload", async () => {
  const client = new ClientSide();
  const first = await serverChild(client, "first");
  client.relay.attach(first.link);
  client.send({ id: "slow", method: "tools/call", params: { name: "hang", arguments: {}, _meta: MODERN_META } });
  await until(() => client.relay.phase === "live", "the relay is live");
  await new Promise((resolve) => setTimeout(resolve, 50)); // the request has reached the server
  client.relay.detach("the server was reloaded (mcp-gen dev)", true);
  const answer = await client.answer("slow");
  assert.equal(answer["error"]?.code, -32603);
  assert.match(answer["error"]?.message, /the server was reloaded \(mcp-gen dev\) while this tools\/call request was in flight; send it again/);
  await closeAll(first);
});

test("an open listen stream is opened again on the new server under its id; the client gets no second acknowledgement, and is told its tools changed on it", async () => {
  const client = new ClientSide();
  const first = await serverChild(client, "first");
  client.relay.attach(first.link);
  client.send({ id: "listen-1", method: "subscriptions/listen", params: { _meta: MODERN_META, notifications: { toolsListChanged: true } } });
  await until(() => client.methods().includes("notifications/subscriptions/acknowledged"), "the acknowledgement");

  const second = await serverChild(client, "second");
  client.relay.detach("the server was reloaded (mcp-gen dev)", true);
  client.relay.attach(second.link);
  await until(() => second.recording.calls.includes("subscribe"), "the new server took the stream");
  await until(() => client.methods().includes("notifications/tools/list_changed"), "tools list_changed");
  await new Promise((resolve) => setTimeout(resolve, 50)); // a second acknowledgement would be here by now
  assert.deepEqual(client.methods(), ["notifications/subscriptions/acknowledged", "notifications/tools/list_changed"]);
  const changed = client.received.find((message) => message["method"] === "notifications/tools/list_changed")!;
  assert.equal(changed["params"]?._meta?.["io.modelcontextprotocol/subscriptionId"], "listen-1");
  assert.equal(client.received.filter((message) => "id" in message).length, 0, "the stream is not answered: it goes on");
  await closeAll(first, second);
});

test("messages sent while the server restarts wait for the new one", async () => {
  const client = new ClientSide();
  const first = await serverChild(client, "first");
  client.relay.attach(first.link);
  client.relay.detach("the server was reloaded (mcp-gen dev)", true);
  client.send({ id: 1, method: "tools/list", params: { _meta: MODERN_META } });
  const second = await serverChild(client, "second");
  client.relay.attach(second.link);
  assert.equal(toolDescription(await client.answer(1)), "second");
  await closeAll(first, second);
});

test("while no server runs after one exited, requests are answered at once with why", async () => {
  const client = new ClientSide();
  const first = await serverChild(client, "first");
  client.relay.attach(first.link);
  client.relay.detach("the server exited (code 1)", false);
  client.send({ id: 1, method: "tools/list", params: { _meta: MODERN_META } });
  assert.match((await client.answer(1))["error"]?.message, /the server exited \(code 1\); mcp-gen dev starts it again after the next successful build/);
  await closeAll(first);
});

test("mcp-gen dev holds at most maxInFlight client requests at a server; more are refused at once", async () => {
  const client = new ClientSide({ ...DEFAULT_RELAY_LIMITS, maxInFlight: 1 });
  const first = await serverChild(client, "first");
  client.relay.attach(first.link);
  await until(() => client.relay.phase === "live", "the relay is live");
  client.send({ id: 1, method: "tools/call", params: { name: "hang", arguments: {}, _meta: MODERN_META } });
  client.send({ id: 2, method: "tools/list", params: { _meta: MODERN_META } });
  assert.match((await client.answer(2))["error"]?.message, /too many requests in flight \(mcp-gen dev holds at most 1\)/);
  first.stopHanging();
  await client.answer(1);
  client.send({ id: 3, method: "tools/list", params: { _meta: MODERN_META } });
  assert.equal(toolDescription(await client.answer(3)), "first", "the slot is free again once answered");
  await closeAll(first);
});

test("mcp-gen dev holds at most maxQueued client messages while the server restarts; a request beyond is refused at once", async () => {
  const client = new ClientSide({ ...DEFAULT_RELAY_LIMITS, maxQueued: 1 });
  client.send({ id: 1, method: "tools/list", params: { _meta: MODERN_META } });
  client.send({ id: 2, method: "tools/list", params: { _meta: MODERN_META } });
  assert.match((await client.answer(2))["error"]?.message, /the server is restarting \(mcp-gen dev\) and too many messages wait for it/);
  const first = await serverChild(client, "first");
  client.relay.attach(first.link);
  assert.equal(toolDescription(await client.answer(1)), "first");
  await closeAll(first);
});

test("a line a server writes to stdout that is not JSON-RPC is kept off the client's stdout and shown on stderr", async () => {
  const client = new ClientSide();
  const first = await serverChild(client, "first");
  client.relay.attach(first.link);
  client.relay.fromChild(first.link, "debugging: here");
  assert.deepEqual(client.received, []);
  assert.match(client.logged.join("\n"), /the server wrote a non-JSON-RPC line to stdout \(kept off the wire\): debugging: here/);
  await closeAll(first);
});

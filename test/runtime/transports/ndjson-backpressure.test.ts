/**
 * NDJSON output backpressure against a real TCP peer on 127.0.0.1 that sends requests and
 * does not read the answers: the transport stops reading input while its output is over
 * the high-water mark, and cuts the peer off past `maxBufferedBytes`, reporting it
 * through `onEvent`. Other peers are served throughout.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { createServer, type RuntimeEvent } from "../../../packages/runtime/src/index.js";
import { NdjsonTransport, type NdjsonOptions } from "../../../packages/runtime/src/transports/index.js";
import { REQUEST_META } from "../../support/runtime-peer.js";

const T = { timeout: 60_000 };
const KiB = 1024;
const MiB = 1024 * KiB;

/** A server whose `big` tool answers `bytes` characters; every NDJSON socket is one connection. */
async function serve(options: NdjsonOptions) {
  const events: RuntimeEvent[] = [];
  const sockets: Socket[] = [];
  const calls = { count: 0 };
  let reportError: (error: Error) => void = () => {};
  const transportError = new Promise<Error>((resolve) => (reportError = resolve));
  let accept: (socket: Socket) => void = () => {};
  const accepted = new Promise<Socket>((resolve) => (accept = resolve));
  const server = createServer({
    name: "ndjson-backpressure",
    version: "1.0.0",
    onEvent: (event) => {
      events.push(event);
      if (event.type === "transport-error") reportError(event.error as Error);
    },
  });
  server.addTool({ name: "big", inputSchema: { type: "object", properties: { bytes: { type: "number" } } } }, (args) => {
    calls.count++;
    return { content: [{ type: "text", text: "x".repeat(Number(args.bytes)) }] };
  });
  const tcp: TcpServer = createTcpServer((socket) => {
    sockets.push(socket);
    accept(socket);
    void server.connect(new NdjsonTransport(socket, options));
  });
  tcp.listen(0, "127.0.0.1");
  await once(tcp, "listening");
  const { port } = tcp.address() as AddressInfo;
  return {
    port,
    events,
    transportError,
    accepted,
    sockets,
    calls,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await server.close();
      await new Promise((resolve) => tcp.close(resolve));
    },
  };
}

function call(id: number, bytes: number, pad = 0): string {
  return (
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "big", arguments: { bytes, pad: " ".repeat(pad) }, _meta: REQUEST_META } }) +
    "\n"
  );
}

/** A peer that writes and, until `read()`, reads nothing. */
async function peer(port: number) {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  await once(socket, "connect");
  socket.pause();
  return socket;
}

/** Reads answers from `socket` until `count` lines arrived. */
async function readAnswers(socket: Socket, count: number): Promise<number> {
  let lines = 0;
  socket.setEncoding("utf8");
  socket.resume();
  for await (const chunk of socket as AsyncIterable<string>) {
    for (const char of chunk) if (char === "\n") lines++;
    if (lines >= count) break;
  }
  return lines;
}

describe("NDJSON output backpressure (a TCP peer that does not read)", () => {
  it("highWaterBytes: the transport stops reading input while its output is over the mark, and serves the rest once the peer reads", T, async () => {
    const server = await serve({ highWaterBytes: 256 * KiB, maxBufferedBytes: 256 * MiB });
    try {
      const requests = 40;
      const client = await peer(server.port);
      const serverSide = await server.accepted;
      const paused = once(serverSide, "pause").then(() => server.calls.count);
      // Each request padded to about an input chunk, each answer 1 MiB: the first answers pass the mark.
      for (let id = 0; id < requests; id++) client.write(call(id, MiB, 64 * KiB));
      const servedWhenPaused = await paused;
      assert.ok(servedWhenPaused < requests, `${servedWhenPaused} of ${requests} requests were read before input paused`);
      assert.equal(await readAnswers(client, requests), requests, "once the peer reads, every request is answered");
      assert.equal(server.calls.count, requests);
      assert.deepEqual(
        server.events.filter((event) => event.type === "transport-error"),
        [],
      );
      client.destroy();
    } finally {
      await server.close();
    }
  });

  it("maxBufferedBytes: a peer that never reads is cut off, reported through onEvent; another peer is still served", T, async () => {
    const server = await serve({ highWaterBytes: 64 * KiB, maxBufferedBytes: 512 * KiB });
    try {
      const stuck = await peer(server.port);
      const closed = once(stuck, "close");
      // More than the kernel's buffers take: the output's backlog must pass the bound.
      for (let id = 0; id < 24; id++) stuck.write(call(id, MiB));
      const reported = await server.transportError;
      assert.equal(reported.name, "SlowConsumerEvicted");
      assert.match(reported.message, /maxBufferedBytes 524288/);
      stuck.destroy();
      await closed;
      const other = await peer(server.port);
      other.write(call(100, 10));
      assert.equal(await readAnswers(other, 1), 1);
      other.destroy();
    } finally {
      await server.close();
    }
  });
});

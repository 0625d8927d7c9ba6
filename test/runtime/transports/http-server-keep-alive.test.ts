/**
 * serveHttp's idle keep-alive time, seen from a raw socket: a connection a balancer keeps idle
 * for its next request must outlive node:http's own 5 s, and must still close once idle for
 * the time it was given.
 */
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, describe, it } from "node:test";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { countingApp } from "./http-helpers.js";

const PROBE = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
/**
 * Past node:http's own default of 5 s, which it enforces a second late (its socket timeout is
 * the advertised `Keep-Alive: timeout=5` plus 1 s), and well inside the runtime's 65 s.
 */
const IDLE_PAST_NODE_DEFAULT_MS = 7_500;

/** A raw connection that records what it was sent and whether the server closed it. */
interface RawConnection {
  readonly socket: Socket;
  received(): string;
  closed(): boolean;
  /** Resolves once the connection closes, or after `ms` (whichever comes first). */
  closeWithin(ms: number): Promise<void>;
}

async function open(port: number): Promise<RawConnection> {
  const socket = connect(port, "127.0.0.1");
  let text = "";
  let closed = false;
  const closing = new Promise<void>((resolve) => socket.once("close", () => resolve(void (closed = true))));
  socket.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  socket.on("error", () => {}); // a reset shows as the close
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  return {
    socket,
    received: () => text,
    closed: () => closed,
    closeWithin: (ms) => Promise.race([closing, new Promise<void>((resolve) => setTimeout(resolve, ms))]),
  };
}

/** Sends the probe and waits (up to 5 s) for its whole answer: `answers` answers in all on this connection. */
async function probeOn(connection: RawConnection, answers: number): Promise<void> {
  connection.socket.write(PROBE);
  const deadline = Date.now() + 5_000;
  while (connection.received().split("\r\n\r\nok\n").length <= answers && !connection.closed() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function statusLines(text: string): string[] {
  return text.match(/HTTP\/1\.1 \d{3} [^\r]*/g) ?? [];
}

describe("serveHttp keeps an idle connection open for its keep-alive time, then closes it", () => {
  const handles: HttpServerHandle[] = [];
  after(() => Promise.all(handles.map((handle) => handle.close())));

  it("an idle keep-alive connection outlives node:http's 5 s default and serves its next request", { timeout: 20_000 }, async () => {
    const handle = await serveHttp(countingApp().server);
    handles.push(handle);
    const connection = await open(handle.port);
    await probeOn(connection, 1);
    assert.deepEqual(statusLines(connection.received()), ["HTTP/1.1 200 OK"]);
    await connection.closeWithin(IDLE_PAST_NODE_DEFAULT_MS);
    assert.equal(connection.closed(), false, `closed after ${IDLE_PAST_NODE_DEFAULT_MS} ms idle`);
    await probeOn(connection, 2);
    assert.deepEqual(statusLines(connection.received()), ["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"], `closed: ${connection.closed()}`);
    assert.match(connection.received(), /^keep-alive: timeout=65$/im, "the server tells its peer how long it keeps the connection");
    connection.socket.destroy();
  });

  it("with keepAliveTimeoutMs set, an idle connection is closed once idle that long", { timeout: 20_000 }, async () => {
    const handle = await serveHttp(countingApp().server, { keepAliveTimeoutMs: 300 });
    handles.push(handle);
    const connection = await open(handle.port);
    await probeOn(connection, 1);
    assert.deepEqual(statusLines(connection.received()), ["HTTP/1.1 200 OK"]);
    // node:http closes it a second after the time given; its own default would take 6 s.
    await connection.closeWithin(4_000);
    assert.equal(connection.closed(), true, "still open 4 s after its answer with keepAliveTimeoutMs 300");
  });

  it("keepAliveTimeoutMs must be a whole number of ms above 0", async () => {
    for (const keepAliveTimeoutMs of [0, -1, 1.5, Number.POSITIVE_INFINITY]) {
      const served = serveHttp(countingApp().server, { keepAliveTimeoutMs });
      // A server that took the value is closed with the others, so a failure here ends too.
      served.then(
        (handle) => handles.push(handle),
        () => {},
      );
      await assert.rejects(served, /keepAliveTimeoutMs must be a whole number of ms above 0/);
    }
  });
});

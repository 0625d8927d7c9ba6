/**
 * `serveHttp({ proxyProtocol: true })`: a trusted proxy's connection starts with a PROXY
 * protocol header whose client address keys the per-client shares; without a valid one
 * within the wait it is closed; from any other peer the header is not read. Real servers on
 * loopback, raw sockets bound to 127.0.0.N writing the header and an HTTP request.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { createServer } from "../../../packages/runtime/src/index.js";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { LEGACY_INITIALIZE } from "./http-helpers.js";

const T = { timeout: 20_000 };
const PROXY = "127.0.0.5";
const STRANGER = "127.0.0.6";
/** How long one exchange may take before the test gives up on it. */
const EXCHANGE_MS = 5_000;

const SIGNATURE = [0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a];

/** A v2 PROXY (or LOCAL) header for a TCP4 client `source`:4000 reaching 127.0.0.1:443. */
function v2(source: string, command: "PROXY" | "LOCAL" = "PROXY"): Buffer {
  const block = [...source.split(".").map(Number), 127, 0, 0, 1, 0x0f, 0xa0, 0x01, 0xbb];
  return Buffer.from([...SIGNATURE, command === "PROXY" ? 0x21 : 0x20, 0x11, 0, block.length, ...block]);
}

function v1(source: string): Buffer {
  return Buffer.from(`PROXY TCP4 ${source} 127.0.0.1 4000 443\r\n`, "latin1");
}

function initializeRequest(port: number): Buffer {
  const body = JSON.stringify(LEGACY_INITIALIZE);
  const head = [
    "POST /mcp HTTP/1.1",
    `host: 127.0.0.1:${port}`,
    "content-type: application/json",
    "accept: application/json, text/event-stream",
    `content-length: ${Buffer.byteLength(body)}`,
    "connection: close",
  ];
  return Buffer.from(`${head.join("\r\n")}\r\n\r\n${body}`);
}

/**
 * Connects from `localAddress`, writes each of `parts` (a part after the first waits a turn of
 * the event loop, so it may travel apart), and resolves with the HTTP status answered, 0 when
 * the server closed the connection without one.
 */
function exchange(port: number, localAddress: string, parts: readonly Buffer[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", localAddress });
    const chunks: Buffer[] = [];
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer and no close within ${EXCHANGE_MS} ms`));
    }, EXCHANGE_MS);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => {}); // a reset is a close, reported below
    socket.on("close", () => {
      clearTimeout(deadline);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(chunks).toString("latin1"));
      resolve(status === null ? 0 : Number(status[1]));
    });
    socket.once("connect", async () => {
      for (const part of parts) {
        if (socket.destroyed) return;
        socket.write(part);
        await new Promise((next) => setImmediate(next));
      }
    });
  });
}

function serveShares(options: Parameters<typeof serveHttp>[1]): Promise<HttpServerHandle> {
  const server = createServer({ name: "shares", version: "1.0.0", legacy: { maxSessionsPerClient: 1 } });
  return serveHttp(server, options);
}

describe("serveHttp with proxyProtocol: the client a trusted proxy's PROXY header names", () => {
  let handle: HttpServerHandle;
  let request: Buffer;
  before(async () => {
    handle = await serveShares({ trustedProxies: [PROXY], proxyProtocol: true, proxyHeaderTimeoutMs: 300 });
    request = initializeRequest(handle.port);
  });
  after(() => handle.close());

  it("from a trusted proxy, each client a v1 or v2 header names has its own share, and is held to it", T, async () => {
    assert.equal(await exchange(handle.port, PROXY, [Buffer.concat([v1("203.0.113.1"), request])]), 200);
    assert.equal(await exchange(handle.port, PROXY, [Buffer.concat([v2("203.0.113.2"), request])]), 200);
    // The same clients again, each by the other version: at their share.
    assert.equal(await exchange(handle.port, PROXY, [Buffer.concat([v2("203.0.113.1"), request])]), 429);
    assert.equal(await exchange(handle.port, PROXY, [Buffer.concat([v1("203.0.113.2"), request])]), 429);
  });

  it("a header that arrives in pieces, apart from its request, is read whole", T, async () => {
    const header = v2("203.0.113.3");
    const parts = [header.subarray(0, 5), header.subarray(5, 14), header.subarray(14), request.subarray(0, 20), request.subarray(20)];
    assert.equal(await exchange(handle.port, PROXY, parts), 200);
    assert.equal(await exchange(handle.port, PROXY, [v1("203.0.113.3").subarray(0, 9), v1("203.0.113.3").subarray(9), request]), 429);
  });

  it("LOCAL and UNKNOWN keep the proxy's own address as the client", T, async () => {
    assert.equal(await exchange(handle.port, PROXY, [Buffer.concat([v2("203.0.113.4", "LOCAL"), request])]), 200);
    assert.equal(await exchange(handle.port, PROXY, [Buffer.concat([Buffer.from("PROXY UNKNOWN\r\n"), request])]), 429);
  });

  it("a trusted proxy's connection without a valid header is closed unanswered", T, async () => {
    assert.equal(await exchange(handle.port, PROXY, [request]), 0, "no header");
    assert.equal(await exchange(handle.port, PROXY, [Buffer.concat([Buffer.from("PROXY TCP4 203.0.113.9 127.0.0.1 99999 443\r\n"), request])]), 0, "a bad port");
    assert.equal(await exchange(handle.port, PROXY, [Buffer.concat([Buffer.from(`PROXY UNKNOWN ${"x".repeat(120)}\r\n`), request])]), 0, "too long");
    const oversized = v2("203.0.113.9");
    oversized.writeUInt16BE(0xffff, 14);
    assert.equal(await exchange(handle.port, PROXY, [oversized]), 0, "a v2 length over the cap");
    // The server still serves: one more client through the proxy.
    assert.equal(await exchange(handle.port, PROXY, [Buffer.concat([v1("203.0.113.10"), request])]), 200);
  });

  it("a header not whole within proxyHeaderTimeoutMs closes the connection", T, async () => {
    assert.equal(await exchange(handle.port, PROXY, [Buffer.from("PROXY TCP4 203.0.")]), 0);
    assert.equal(await exchange(handle.port, PROXY, [v2("203.0.113.11").subarray(0, 20)]), 0);
  });

  it("from a peer not in trustedProxies the header is not read: the request fails as HTTP, and the peer keeps its own share", T, async () => {
    assert.equal(await exchange(handle.port, STRANGER, [Buffer.concat([v1("203.0.113.20"), request])]), 400);
    assert.equal(await exchange(handle.port, STRANGER, [Buffer.concat([v2("203.0.113.21"), request])]), 400);
    assert.equal(await exchange(handle.port, STRANGER, [request]), 200);
    assert.equal(await exchange(handle.port, STRANGER, [request]), 429);
  });
});

describe("serveHttp's proxyProtocol setting", () => {
  it("needs trustedProxies: without them it is refused at start", T, async () => {
    await assert.rejects(serveShares({ proxyProtocol: true }), /proxyProtocol: list the proxies that send the header in trustedProxies/);
    await assert.rejects(serveShares({ proxyProtocol: true, trustedProxies: [] }), /proxyProtocol: list the proxies/);
  });

  it("unset, a trusted proxy's connection is plain HTTP: a PROXY header is not read", T, async () => {
    const handle = await serveShares({ trustedProxies: [PROXY] });
    try {
      assert.equal(await exchange(handle.port, PROXY, [Buffer.concat([v1("203.0.113.30"), initializeRequest(handle.port)])]), 400);
      assert.equal(await exchange(handle.port, PROXY, [initializeRequest(handle.port)]), 200);
    } finally {
      await handle.close();
    }
  });
});

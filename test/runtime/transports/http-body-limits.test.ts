/**
 * Streamable HTTP: what request bodies still arriving may hold. Every body being read
 * takes its bytes from one budget shared by all connections (`maxTotalBodyBytes`) as they
 * arrive, and a body must arrive within `bodyTimeoutMs`. Real sockets on 127.0.0.1, each
 * sending a body (chunked, or of declared length) below the per-body limit and then holding
 * it open, as a trickling client does; the node handler and the fetch handler on
 * @hono/node-server alike.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import type { Server as NodeServer } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { serve } from "@hono/node-server";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { toFetchHandler } from "../../../packages/runtime/src/transports/http-fetch.js";
import type { HttpEndpointOptions } from "../../../packages/runtime/src/transports/http-core.js";
import { countingApp, mcpHeaders, post, request } from "./http-helpers.js";

const T = { timeout: 30_000 };
const KiB = 1024;

const message = request(1, "tools/list");
const messageText = JSON.stringify(message);

/** A POST's head: its body chunked, or of a declared length. */
function head(framing: string): string {
  const headers = Object.entries(mcpHeaders(message)).map(([name, value]) => `${name}: ${value}\r\n`);
  return `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n${headers.join("")}${framing}\r\n\r\n`;
}

function chunk(data: Buffer | string): Buffer {
  const bytes = Buffer.from(data);
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n")]);
}

/**
 * A client that sends `padding` bytes of a body (JSON whitespace), then holds the body open:
 * a chunked body, or (`declared`) one whose Content-Length counts the padding and the message.
 */
class SlowBody {
  readonly socket: Socket;
  received = "";
  readonly closed: Promise<unknown>;
  #waiters: Array<() => void> = [];
  #declared = false;

  constructor(port: number) {
    this.socket = connect(port, "127.0.0.1");
    this.socket.setEncoding("latin1");
    this.socket.on("error", () => {});
    this.socket.on("data", (text: string) => {
      this.received += text;
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.closed = once(this.socket, "close").catch(() => undefined);
  }

  async start(padding: number, declared = false): Promise<void> {
    this.#declared = declared;
    await once(this.socket, "connect");
    if (!declared) {
      this.socket.write(head("transfer-encoding: chunked"));
      this.socket.write(chunk(Buffer.alloc(padding, 0x20)));
      return;
    }
    this.socket.write(head(`content-length: ${padding + Buffer.byteLength(messageText)}`));
    this.socket.write(Buffer.alloc(padding, 0x20));
  }

  /** Announces a body of `length` bytes and sends none of it. */
  async announce(length: number): Promise<void> {
    await once(this.socket, "connect");
    this.socket.write(head(`content-length: ${length}`));
  }

  /** Ends the body with the message itself. */
  finish(): void {
    if (this.#declared) return void this.socket.write(messageText);
    this.socket.write(chunk(messageText));
    this.socket.write("0\r\n\r\n");
  }

  get status(): number | undefined {
    const match = /^HTTP\/1\.1 (\d{3}) /.exec(this.received);
    return match === null ? undefined : Number(match[1]);
  }

  /** Resolves once a complete answer head has arrived. */
  async answered(): Promise<void> {
    while (!this.received.includes("\r\n\r\n")) await new Promise<void>((wake) => this.#waiters.push(wake));
  }
}

/** A server under test: the node handler, or the fetch handler on a real node-to-fetch bridge. */
interface Served {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

type Serve = (options: HttpEndpointOptions) => Promise<Served>;

const servers: ReadonlyArray<readonly [string, Serve]> = [
  ["the node handler", (options) => serveHttp(countingApp().server, options)],
  [
    "the fetch handler on @hono/node-server",
    async (options) => {
      const http = serve({ fetch: toFetchHandler(countingApp().server, { path: "/mcp", ...options }), hostname: "127.0.0.1", port: 0 }) as NodeServer;
      if (!http.listening) await once(http, "listening");
      const { port } = http.address() as AddressInfo;
      const close = () => {
        http.closeAllConnections();
        return new Promise<void>((closed) => http.close(() => closed()));
      };
      return { port, url: `http://127.0.0.1:${port}/mcp`, close };
    },
  ],
];

for (const [name, start] of servers) {
  describe(`Streamable HTTP bounds the request bodies being read, across connections and in time (${name})`, () => {
    const maxBodyBytes = 64 * KiB;
    const maxTotalBodyBytes = 128 * KiB;
    const padding = 60 * KiB; // below maxBodyBytes: only the shared budget can refuse it
    let served: Served;
    before(async () => {
      served = await start({ maxBodyBytes, maxTotalBodyBytes, bodyTimeoutMs: 60_000 });
    });
    after(() => served.close());

    for (const declared of [false, true]) {
      const framing = declared ? "declared lengths" : "chunked bodies";
      it(`maxTotalBodyBytes: bodies past the budget get 503 with Retry-After, their bytes released; the bodies held are served (${framing})`, T, async () => {
        const clients = 6;
        const fit = Math.floor(maxTotalBodyBytes / padding); // at most this many bodies can be held whole at once
        const bodies = Array.from({ length: clients }, () => new SlowBody(served.port));
        await Promise.all(bodies.map((body) => body.start(padding, declared)));
        // Once the server has read every body, at least clients - fit of them were refused.
        const refused = new Set<SlowBody>();
        await new Promise<void>((done) => {
          for (const body of bodies) {
            void body.answered().then(() => {
              refused.add(body);
              if (refused.size >= clients - fit) done();
            });
          }
        });
        for (const body of refused) {
          assert.equal(body.status, 503, body.received);
          assert.match(body.received, /\r\nretry-after: \d+\r\n/i);
          assert.match(body.received, /maxTotalBodyBytes 131072/);
        }
        // The refused bodies gave their bytes back: every body still held completes and is served.
        const held = bodies.filter((body) => !refused.has(body));
        for (const body of held) body.finish();
        await Promise.all(held.map((body) => body.answered()));
        for (const body of held) assert.ok(body.status === 200 || body.status === 503, body.received);
        for (const body of bodies) body.socket.destroy();
        await Promise.all(bodies.map((body) => body.closed));
        // Nothing is held any more: as many bodies as fit are taken again, at once.
        const again = Array.from({ length: fit }, () => new SlowBody(served.port));
        await Promise.all(again.map((body) => body.start(padding, declared)));
        for (const body of again) body.finish();
        await Promise.all(again.map((body) => body.answered()));
        assert.deepEqual(
          again.map((body) => body.status),
          again.map(() => 200),
        );
        for (const body of again) body.socket.destroy();
      });
    }

    it("a body is charged by the bytes received: clients announcing whole bodies and sending none leave every other POST served", T, async () => {
      const announcers = Array.from({ length: 4 }, () => new SlowBody(served.port));
      await Promise.all(announcers.map((body) => body.announce(maxBodyBytes)));
      try {
        // Four announced bodies are twice the budget; none of their bytes came, so none is held.
        for (let id = 2; id < 6; id++) {
          const { status } = await post(served.url, request(id, "tools/list"));
          assert.equal(status, 200);
        }
        assert.deepEqual(
          announcers.map((body) => body.status),
          announcers.map(() => undefined),
          "the announced bodies are still being waited for",
        );
      } finally {
        for (const body of announcers) body.socket.destroy();
      }
    });
  });
}

describe("Streamable HTTP: a body not complete within bodyTimeoutMs is answered 408 and its connection closed", () => {
  let handle: HttpServerHandle;
  before(async () => {
    handle = await serveHttp(countingApp().server, { bodyTimeoutMs: 200 });
  });
  after(() => handle.close());

  it("bodyTimeoutMs: a trickling body gets 408, its connection closes, and the server still serves", T, async () => {
    const slow = new SlowBody(handle.port);
    await slow.start(4 * KiB);
    await slow.closed; // the server closes the connection; the client never ends its body
    assert.equal(slow.status, 408, slow.received);
    assert.match(slow.received, /\r\nconnection: close\r\n/i);
    assert.match(slow.received, /bodyTimeoutMs/);
    const { status } = await post(handle.url, request(2, "tools/list"));
    assert.equal(status, 200);
  });
});

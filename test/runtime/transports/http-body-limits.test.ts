/**
 * Streamable HTTP: what request bodies still arriving may hold. Every body being read
 * takes its bytes from one budget shared by all connections (`maxTotalBodyBytes`), and a
 * body must arrive within `bodyTimeoutMs`. Real sockets on 127.0.0.1, each sending a
 * chunked body below the per-body limit and then holding it open, as a trickling client does.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { serveHttp, type HttpServerHandle } from "../../../templates/runtime/transports/http-server.js";
import { countingApp, mcpHeaders, post, request } from "./http-helpers.js";

const T = { timeout: 30_000 };
const KiB = 1024;

const message = request(1, "tools/list");
const head = `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n${Object.entries(mcpHeaders(message))
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join("")}transfer-encoding: chunked\r\n\r\n`;

function chunk(data: Buffer | string): Buffer {
  const bytes = Buffer.from(data);
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n")]);
}

/** A client that sends `padding` bytes of a chunked body (JSON whitespace), then holds the body open. */
class SlowBody {
  readonly socket: Socket;
  received = "";
  readonly closed: Promise<unknown>;
  #waiters: Array<() => void> = [];

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

  async start(padding: number): Promise<void> {
    await once(this.socket, "connect");
    this.socket.write(head);
    this.socket.write(chunk(Buffer.alloc(padding, 0x20)));
  }

  /** Ends the body with the message itself. */
  finish(): void {
    this.socket.write(chunk(JSON.stringify(message)));
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

describe("Streamable HTTP bounds the request bodies being read, across connections and in time", () => {
  const maxBodyBytes = 64 * KiB;
  const maxTotalBodyBytes = 128 * KiB;
  const padding = 60 * KiB; // below maxBodyBytes: only the shared budget can refuse it
  let handle: HttpServerHandle;
  before(async () => {
    handle = await serveHttp(countingApp().server, { maxBodyBytes, maxTotalBodyBytes, bodyTimeoutMs: 60_000 });
  });
  after(() => handle.close());

  it("maxTotalBodyBytes: bodies past the budget get 503 with Retry-After, their bytes released; the bodies held are served", T, async () => {
    const clients = 6;
    const fit = Math.floor(maxTotalBodyBytes / padding); // at most this many bodies can be held whole at once
    const bodies = Array.from({ length: clients }, () => new SlowBody(handle.port));
    await Promise.all(bodies.map((body) => body.start(padding)));
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
    const again = Array.from({ length: fit }, () => new SlowBody(handle.port));
    await Promise.all(again.map((body) => body.start(padding)));
    for (const body of again) body.finish();
    await Promise.all(again.map((body) => body.answered()));
    assert.deepEqual(
      again.map((body) => body.status),
      again.map(() => 200),
    );
    for (const body of again) body.socket.destroy();
  });
});

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

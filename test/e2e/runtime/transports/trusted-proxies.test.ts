/**
 * Who a client is behind a proxy (`trustedProxies`): the address a trusted proxy writes in
 * X-Forwarded-For, read from the right; from any other peer the header is ignored, and a
 * principal keys its share whatever the header says. Real servers on loopback, clients bound
 * to several 127.0.0.N addresses, and a real HAProxy with `option forwardfor` in front.
 */
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { after, before, describe, it } from "node:test";
import { createServer } from "../../../../packages/runtime/src/index.js";
import { serveHttp, type HttpServerHandle } from "../../../../packages/runtime/src/transports/http-server.js";
import { trustProxies } from "../../../../packages/runtime/src/transports/trusted-proxies.js";
import { haproxyMissing, startBalancer, type Balancer } from "../../../support/haproxy.js";
import { countingApp, initializeFrom, openListen, post, request } from "../../../runtime/transports/http-helpers.js";

const T = { timeout: 30_000 };

/** A server whose clients each hold at most `share` legacy sessions. */
function serveShares(share: number, options: Parameters<typeof serveHttp>[1] = {}): Promise<HttpServerHandle> {
  const server = createServer({ name: "shares", version: "1.0.0", legacy: { maxSessionsPerClient: share } });
  return serveHttp(server, options);
}

describe("trustProxies: the client address of a request", () => {
  const clientOf = trustProxies(["127.0.0.1", "10.0.0.0/8", "fd00::/8"]);

  it("from a trusted peer, the right-most X-Forwarded-For address that is not a trusted proxy", () => {
    assert.equal(clientOf("127.0.0.1", "198.51.100.7"), "198.51.100.7");
    assert.equal(clientOf("127.0.0.1", "203.0.113.9, 198.51.100.7, 10.1.2.3"), "198.51.100.7");
    assert.equal(clientOf("::ffff:127.0.0.1", "[2001:DB8:0:0::1]:4433"), "2001:db8::1");
    assert.equal(clientOf("fd00::2", "198.51.100.7:5000"), "198.51.100.7");
    // Only proxies on the way: the farthest one is the client.
    assert.equal(clientOf("127.0.0.1", "10.0.0.1, 10.0.0.2"), "10.0.0.1");
    // A hop that is not an address was not written by a trusted proxy: the last trusted one keys the client.
    assert.equal(clientOf("127.0.0.1", "198.51.100.7, unknown"), "127.0.0.1");
    assert.equal(clientOf("127.0.0.1", undefined), "127.0.0.1");
  });

  it("X-Forwarded-For from an untrusted peer is ignored", () => {
    assert.equal(clientOf("198.51.100.7", "203.0.113.9"), "198.51.100.7");
    assert.equal(clientOf("::ffff:198.51.100.7", "10.0.0.1"), "198.51.100.7", "an IPv4-mapped peer is its IPv4 address");
    assert.equal(clientOf("2001:db8::5", "203.0.113.9"), "2001:db8::5");
  });

  it("a bad entry is refused once, naming it", async () => {
    for (const entry of ["10.0.0.0/33", "10.0.0.256", "fd00::/129", "proxy.internal", "10.0.0.0/8/1", ""]) {
      const named = `trustedProxies: ${JSON.stringify(entry)} is not an IPv4 or IPv6 address or CIDR block`;
      assert.throws(() => trustProxies([entry]), (error: Error) => error.message.startsWith(named));
    }
    await assert.rejects(serveShares(1, { trustedProxies: ["10.0.0.0/8", "nonsense"] }), /trustedProxies: "nonsense" is not an IPv4 or IPv6 address/);
  });
});

describe("serveHttp with trustedProxies: per-client shares by the address a trusted proxy forwards", () => {
  let handle: HttpServerHandle;
  before(async () => {
    handle = await serveShares(1, {
      trustedProxies: ["127.0.0.5"],
      authenticate: (req: IncomingMessage) => req.headers["x-user"],
    });
  });
  after(() => handle.close());

  it("X-Forwarded-For from an untrusted peer is ignored: its own address holds its share", T, async () => {
    assert.equal(await initializeFrom(handle.url, "127.0.0.2", { "x-forwarded-for": "198.51.100.1" }), 200);
    assert.equal(await initializeFrom(handle.url, "127.0.0.2", { "x-forwarded-for": "198.51.100.2" }), 429);
  });

  it("from a trusted proxy, each forwarded address has its own share, and is held to it", T, async () => {
    assert.equal(await initializeFrom(handle.url, "127.0.0.5", { "x-forwarded-for": "203.0.113.1" }), 200);
    assert.equal(await initializeFrom(handle.url, "127.0.0.5", { "x-forwarded-for": "203.0.113.2" }), 200);
    assert.equal(await initializeFrom(handle.url, "127.0.0.5", { "x-forwarded-for": "198.51.100.9, 203.0.113.1" }), 429);
    assert.equal(await initializeFrom(handle.url, "127.0.0.5", { "x-forwarded-for": "203.0.113.2, 127.0.0.5" }), 429);
  });

  it("a request with a principal keeps its share by principal, whatever address is forwarded", T, async () => {
    assert.equal(await initializeFrom(handle.url, "127.0.0.5", { "x-forwarded-for": "203.0.113.50", "x-user": "ada" }), 200);
    assert.equal(await initializeFrom(handle.url, "127.0.0.5", { "x-forwarded-for": "203.0.113.51", "x-user": "ada" }), 429);
    assert.equal(await initializeFrom(handle.url, "127.0.0.5", { "x-forwarded-for": "203.0.113.50", "x-user": "grace" }), 200);
  });
});

describe("serveHttp with trustedProxies: listen streams count against the forwarded address", () => {
  let handle: HttpServerHandle;
  before(async () => {
    handle = await serveHttp(countingApp({ limits: { maxStreamsPerClient: 1 } }).server, { trustedProxies: ["127.0.0.1"] });
  });
  after(() => handle.close());

  it("one listen per forwarded address: a second from the same address is refused, one from another is acknowledged", T, async () => {
    const first = await openListen(handle.url, "a", { toolsListChanged: true }, { "x-forwarded-for": "203.0.113.1" });
    try {
      assert.equal((await first.next()).method, "notifications/subscriptions/acknowledged");
      const again = await post(handle.url, request("b", "subscriptions/listen", { notifications: { toolsListChanged: true } }), { "x-forwarded-for": "203.0.113.1" });
      assert.match(JSON.stringify(again.body), /its share of the server/);
      const other = await openListen(handle.url, "c", { toolsListChanged: true }, { "x-forwarded-for": "203.0.113.2" });
      assert.equal((await other.next()).method, "notifications/subscriptions/acknowledged");
      other.close();
    } finally {
      first.close();
    }
  });
});

describe("behind a real HAProxy with option forwardfor, each client address has its own share", { skip: haproxyMissing() }, () => {
  const share = 2;
  let handle: HttpServerHandle;
  let balancer: Balancer;
  before(async () => {
    // HAProxy reaches the server from 127.0.0.1; the clients come from 127.0.0.2 and up.
    handle = await serveShares(share, { trustedProxies: ["127.0.0.1"] });
    balancer = await startBalancer({ backends: [handle.port], backendLines: ["option forwardfor"] });
  });
  after(async () => {
    await balancer?.stop();
    await handle?.close();
  });

  it("clients from three addresses each open their share; one more from any of them is refused", T, async () => {
    const url = `${balancer.url}/mcp`;
    const addresses = ["127.0.0.2", "127.0.0.3", "127.0.0.4"];
    for (const address of addresses) {
      for (let opened = 0; opened < share; opened++) assert.equal(await initializeFrom(url, address), 200, `${address}'s session ${opened + 1}`);
    }
    for (const address of addresses) assert.equal(await initializeFrom(url, address), 429, `${address} is at its share`);
    // A client naming another address in its own X-Forwarded-For is still its own address: HAProxy appends the one it saw.
    assert.equal(await initializeFrom(url, "127.0.0.2", { "x-forwarded-for": "127.0.0.9" }), 429);
    assert.equal(await initializeFrom(url, "127.0.0.9"), 200);
  });
});

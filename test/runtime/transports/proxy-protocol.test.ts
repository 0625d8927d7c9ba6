/**
 * The PROXY protocol header parser: what a whole v1 or v2 header gives, that every prefix of
 * one waits for more, and that each malformed or oversized header is refused with its rule.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseProxyHeader, PROXY_V1_MAX_BYTES, PROXY_V2_MAX_BYTES } from "../../../packages/runtime/src/transports/proxy-protocol.js";

const SIGNATURE = [0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a];

/** A v2 header: version 2 and `command`, `family`, then `rest` (addresses and TLVs), its length as written unless `length` says otherwise. */
function v2(command: number, family: number, rest: number[], length = rest.length, version = 2): Buffer {
  return Buffer.from([...SIGNATURE, (version << 4) | command, family, length >> 8, length & 0xff, ...rest]);
}

/** A TCP4 address block: source 203.0.113.7:4000, destination 10.0.0.1:443. */
const TCP4_BLOCK = [203, 0, 113, 7, 10, 0, 0, 1, 0x0f, 0xa0, 0x01, 0xbb];
/** A TCP6 address block: source 2001:db8::7, destination ::1, ports as above. */
const TCP6_BLOCK = [0x20, 0x01, 0x0d, 0xb8, ...new Array<number>(11).fill(0), 7, ...new Array<number>(15).fill(0), 1, 0x0f, 0xa0, 0x01, 0xbb];

const text = (line: string) => Buffer.from(line, "latin1");

function reason(bytes: Uint8Array): string {
  const header = parseProxyHeader(bytes);
  assert.equal(header.state, "invalid", `expected a refusal, got ${JSON.stringify(header)}`);
  return (header as { reason: string }).reason;
}

describe("parseProxyHeader: version 1", () => {
  it("a TCP4 or TCP6 line gives its source address, canonical, and its length (what follows is not read)", () => {
    const line = "PROXY TCP4 203.0.113.7 10.0.0.1 4000 443\r\n";
    assert.deepEqual(parseProxyHeader(text(`${line}POST /mcp HTTP/1.1\r\n`)), { state: "complete", length: line.length, source: "203.0.113.7" });
    const six = "PROXY TCP6 2001:DB8:0:0::7 ::1 4000 443\r\n";
    assert.deepEqual(parseProxyHeader(text(six)), { state: "complete", length: six.length, source: "2001:db8::7" });
    assert.deepEqual(parseProxyHeader(text("PROXY TCP6 ::ffff:203.0.113.7 ::1 1 2\r\n")), { state: "complete", length: 39, source: "203.0.113.7" });
  });

  it("UNKNOWN keeps the peer: no source", () => {
    assert.deepEqual(parseProxyHeader(text("PROXY UNKNOWN\r\n")), { state: "complete", length: 15, source: undefined });
    assert.deepEqual(parseProxyHeader(text("PROXY UNKNOWN ffff:f::1 ffff:f::2 1 2\r\n")), { state: "complete", length: 39, source: undefined });
  });

  it("every prefix of a line waits for more", () => {
    const line = text("PROXY TCP4 203.0.113.7 10.0.0.1 4000 443\r\n");
    for (let end = 0; end < line.length; end++) assert.deepEqual(parseProxyHeader(line.subarray(0, end)), { state: "incomplete" }, `${end} bytes`);
  });

  it(`a line of ${PROXY_V1_MAX_BYTES} bytes, CRLF included, is taken; one byte more, or that many without CRLF, is refused`, () => {
    // The spec's worst case: UNKNOWN with the longest IPv6 addresses and ports.
    const longest = `PROXY UNKNOWN ${"ffff:".repeat(7)}ffff ${"ffff:".repeat(7)}ffff 65535 65535\r\n`;
    assert.equal(longest.length, PROXY_V1_MAX_BYTES);
    assert.equal(parseProxyHeader(text(longest)).state, "complete");
    const over = longest.replace("65535 65535", "65535  65535");
    assert.match(reason(text(over)), /at most 107 bytes/);
    assert.match(reason(text("PROXY UNKNOWN " + "x".repeat(200))), /at most 107 bytes/);
    // Refused at the bound, without waiting for a CRLF that would come too late.
    assert.match(reason(text("PROXY UNKNOWN " + "x".repeat(PROXY_V1_MAX_BYTES - 15))), /at most 107 bytes/);
  });

  it("each malformed line is refused, naming its rule", () => {
    const cases: Array<[string, RegExp]> = [
      ["PROXY TCP4 203.0.113.7 10.0.0.1 4000 443\n", /bare LF/],
      ["PROXY TCP4 203.0.113.7 10.0.0.1 4000 443\rX", /ends with CRLF/],
      ["PROXY TCP5 203.0.113.7 10.0.0.1 4000 443\r\n", /protocol "TCP5"/],
      ["PROXY tcp4 203.0.113.7 10.0.0.1 4000 443\r\n", /protocol "tcp4"/],
      ["PROXY TCP4 2001:db8::7 10.0.0.1 4000 443\r\n", /TCP4 line names IPv4 addresses/],
      ["PROXY TCP6 203.0.113.7 ::1 4000 443\r\n", /TCP6 line names IPv6 addresses/],
      ["PROXY TCP4 203.0.113.256 10.0.0.1 4000 443\r\n", /TCP4 line names IPv4 addresses/],
      ["PROXY TCP4 203.0.113.7 10.0.0 4000 443\r\n", /TCP4 line names IPv4 addresses/],
      ["PROXY TCP6 fe80::1%eth0 ::1 4000 443\r\n", /TCP6 line names IPv6 addresses/],
      ["PROXY TCP4 203.0.113.7 10.0.0.1 65536 443\r\n", /port is a number/],
      ["PROXY TCP4 203.0.113.7 10.0.0.1 -1 443\r\n", /port is a number/],
      ["PROXY TCP4 203.0.113.7 10.0.0.1 4000\r\n", /two addresses and two ports/],
      ["PROXY TCP4 203.0.113.7 10.0.0.1 4000 443 8\r\n", /two addresses and two ports/],
      ["PROXY TCP4  203.0.113.7 10.0.0.1 4000 443\r\n", /two addresses and two ports|IPv4 addresses/],
      ["PROXY \r\n", /two addresses and two ports/],
    ];
    for (const [line, rule] of cases) assert.match(reason(text(line)), rule, JSON.stringify(line));
  });

  it("a connection that starts otherwise is refused at its first byte that differs", () => {
    assert.match(reason(text("POST /mcp HTTP/1.1\r\n")), /does not start with a PROXY protocol header/);
    assert.match(reason(text("PROXZ")), /does not start/);
    assert.match(reason(text("proxy TCP4")), /does not start/);
    assert.match(reason(text("G")), /does not start/);
  });
});

describe("parseProxyHeader: version 2", () => {
  it("a PROXY command over TCP4 or TCP6 gives its source address and its length, TLVs skipped", () => {
    assert.deepEqual(parseProxyHeader(v2(1, 0x11, TCP4_BLOCK)), { state: "complete", length: 28, source: "203.0.113.7" });
    assert.deepEqual(parseProxyHeader(v2(1, 0x21, TCP6_BLOCK)), { state: "complete", length: 52, source: "2001:db8::7" });
    const tlv = [0x05, 0x00, 0x03, 0x61, 0x62, 0x63]; // PP2_TYPE_UNIQUE_ID "abc"
    const withTlv = Buffer.concat([v2(1, 0x11, [...TCP4_BLOCK, ...tlv]), text("GET / HTTP/1.1\r\n")]);
    assert.deepEqual(parseProxyHeader(withTlv), { state: "complete", length: 34, source: "203.0.113.7" });
  });

  it("LOCAL (a health check), UNSPEC and UNIX keep the peer: no source", () => {
    assert.deepEqual(parseProxyHeader(v2(0, 0x00, [])), { state: "complete", length: 16, source: undefined });
    assert.deepEqual(parseProxyHeader(v2(0, 0x11, TCP4_BLOCK)), { state: "complete", length: 28, source: undefined });
    assert.deepEqual(parseProxyHeader(v2(1, 0x00, [])), { state: "complete", length: 16, source: undefined });
    assert.deepEqual(parseProxyHeader(v2(1, 0x31, new Array<number>(216).fill(0))), { state: "complete", length: 232, source: undefined });
  });

  it("every prefix of a header waits for more", () => {
    const header = v2(1, 0x21, TCP6_BLOCK);
    for (let end = 0; end < header.length; end++) assert.deepEqual(parseProxyHeader(header.subarray(0, end)), { state: "incomplete" }, `${end} bytes`);
  });

  it(`a header longer than ${PROXY_V2_MAX_BYTES} bytes is refused from its length field, before its bytes arrive`, () => {
    const most = PROXY_V2_MAX_BYTES - 16;
    assert.equal(parseProxyHeader(v2(1, 0x11, TCP4_BLOCK, most)).state, "incomplete");
    assert.equal(parseProxyHeader(v2(1, 0x11, [...TCP4_BLOCK, ...new Array<number>(most - 12).fill(0)])).state, "complete");
    assert.match(reason(v2(1, 0x11, TCP4_BLOCK, most + 1)), /at most 2048 bytes; this one says 2049/);
    assert.match(reason(v2(1, 0x11, TCP4_BLOCK, 0xffff)), /at most 2048 bytes/);
  });

  it("each malformed header is refused, naming its rule, as soon as the byte that breaks it arrives", () => {
    const cases: Array<[Buffer, RegExp]> = [
      [v2(1, 0x11, TCP4_BLOCK, 12, 1), /version nibble is 2, not 1/],
      [v2(1, 0x11, TCP4_BLOCK, 12, 3), /version nibble is 2, not 3/],
      [v2(2, 0x11, TCP4_BLOCK), /command 2 is neither LOCAL/],
      [v2(0xf, 0x11, TCP4_BLOCK), /command 15/],
      [v2(1, 0x12, TCP4_BLOCK), /datagram/],
      [v2(1, 0x22, TCP6_BLOCK), /datagram/],
      [v2(1, 0x41, TCP4_BLOCK), /byte 0x41 is not one the spec defines/],
      [v2(1, 0x13, TCP4_BLOCK), /byte 0x13/],
      [v2(1, 0x11, TCP4_BLOCK.slice(0, 4)), /shorter than its addresses/],
      [v2(1, 0x21, TCP4_BLOCK), /shorter than its addresses/],
      [v2(1, 0x31, new Array<number>(215).fill(0)), /shorter than its addresses/],
    ];
    for (const [header, rule] of cases) assert.match(reason(header), rule, header.subarray(12, 16).toString("hex"));
    // Refused from the fixed bytes alone: the rest never needs to arrive.
    assert.match(reason(v2(1, 0x11, TCP4_BLOCK).subarray(0, 13).fill(0x31, 12)), /version nibble/);
    assert.match(reason(v2(1, 0x11, [], 4)), /shorter than its addresses/);
  });

  it("a signature wrong in any byte is not a header", () => {
    for (let at = 0; at < SIGNATURE.length; at++) {
      const header = v2(1, 0x11, TCP4_BLOCK);
      header[at] = header[at]! ^ 0x20;
      assert.match(reason(header), /does not start with a PROXY protocol header/, `byte ${at}`);
    }
  });
});

/**
 * The PROXY protocol header a balancer writes at the start of a connection to say whose it
 * is (HAProxy's `send-proxy`, version 1, text; `send-proxy-v2`, version 2, binary; the spec is
 * haproxy.org's proxy-protocol.txt). `parseProxyHeader` reads the bytes received so far and
 * says whether they hold a whole header, may still become one, or never will; it never reads
 * past the bounds below, so a peer cannot make it hold more.
 *
 * Only the client's address is kept: the ports, the destination and version 2's TLVs are
 * skipped. A header that names no client (v1 `UNKNOWN`, v2 `LOCAL` such as HAProxy's health
 * checks, an unspecified or UNIX family) keeps the connection's own peer as the client.
 */
import { canonicalAddress } from "./trusted-proxies.js";

/** A version 1 header, CRLF included, is at most this long (the spec's worst case: UNKNOWN followed by the longest IPv6 addresses and ports). */
export const PROXY_V1_MAX_BYTES = 107;
/**
 * A version 2 header, its 16 fixed bytes included, is at most this long: addresses take 216
 * bytes at most (UNIX), and what is left holds the TLVs HAProxy sends (unique id, TLS facts).
 */
export const PROXY_V2_MAX_BYTES = 2048;

export type ProxyHeader =
  /** The bytes so far begin a header; more are needed. */
  | { readonly state: "incomplete" }
  /** The bytes are not a header, or one this server refuses; `reason` says which rule. */
  | { readonly state: "invalid"; readonly reason: string }
  /** A whole header of `length` bytes; `source` is the client address, undefined to keep the peer. */
  | { readonly state: "complete"; readonly length: number; readonly source: string | undefined };

const V1_PREFIX = Buffer.from("PROXY ", "latin1");
const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const V2_FIXED_BYTES = 16;
const INCOMPLETE: ProxyHeader = { state: "incomplete" };

/** Reads the header at the start of `bytes` (everything the connection has sent so far). */
export function parseProxyHeader(bytes: Uint8Array): ProxyHeader {
  if (startsLike(bytes, V2_SIGNATURE)) return bytes.length < V2_SIGNATURE.length ? INCOMPLETE : parseV2(bytes);
  if (startsLike(bytes, V1_PREFIX)) return bytes.length < V1_PREFIX.length ? INCOMPLETE : parseV1(bytes);
  return invalid("the connection does not start with a PROXY protocol header");
}

/** Whether `bytes` and `prefix` agree on the bytes both have. */
function startsLike(bytes: Uint8Array, prefix: Uint8Array): boolean {
  const shared = Math.min(bytes.length, prefix.length);
  for (let at = 0; at < shared; at++) if (bytes[at] !== prefix[at]) return false;
  return true;
}

function invalid(reason: string): ProxyHeader {
  return { state: "invalid", reason };
}

/** `PROXY TCP4|TCP6 <source> <destination> <source port> <destination port>\r\n`, or `PROXY UNKNOWN ...\r\n`. */
function parseV1(bytes: Uint8Array): ProxyHeader {
  // The CR's last possible place is just before the LF that ends the longest line.
  const crLimit = PROXY_V1_MAX_BYTES - 1;
  let end = -1;
  for (let at = V1_PREFIX.length; at < Math.min(bytes.length, crLimit) && end < 0; at++) {
    if (bytes[at] === 0x0a) return invalid("a PROXY v1 line ends with CRLF, not a bare LF");
    if (bytes[at] === 0x0d) end = at;
  }
  if (end < 0) return bytes.length < crLimit ? INCOMPLETE : invalid(`a PROXY v1 line is at most ${PROXY_V1_MAX_BYTES} bytes`);
  if (end + 1 === bytes.length) return INCOMPLETE;
  if (bytes[end + 1] !== 0x0a) return invalid("a PROXY v1 line ends with CRLF");
  const line = Buffer.from(bytes.buffer, bytes.byteOffset, end).toString("latin1");
  const length = end + 2;
  const fields = line.split(" ");
  if (fields[1] === "UNKNOWN") return { state: "complete", length, source: undefined };
  if (fields.length !== 6) return invalid("a PROXY v1 line has the protocol, two addresses and two ports, one space apart");
  const [, protocol, source, destination, sourcePort, destinationPort] = fields as [string, string, string, string, string, string];
  if (protocol !== "TCP4" && protocol !== "TCP6") return invalid(`PROXY v1 protocol ${JSON.stringify(protocol)} is none of TCP4, TCP6, UNKNOWN`);
  const family = protocol === "TCP4" ? 4 : 6;
  const client = addressOfFamily(source, family);
  if (client === undefined || addressOfFamily(destination, family) === undefined)
    return invalid(`a PROXY v1 ${protocol} line names ${protocol === "TCP4" ? "IPv4" : "IPv6"} addresses`);
  if (!isPort(sourcePort) || !isPort(destinationPort)) return invalid("a PROXY v1 port is a number from 0 to 65535");
  return { state: "complete", length, source: client };
}

/** `text` as a canonical address when it is written in the family's own form (no IPv4 in TCP6's dotted-only form, and so on). */
function addressOfFamily(text: string, family: 4 | 6): string | undefined {
  const written = text.includes(":") ? 6 : 4;
  return written === family && !text.includes("%") ? canonicalAddress(text) : undefined;
}

function isPort(text: string): boolean {
  return /^\d{1,5}$/.test(text) && Number(text) <= 65535;
}

/** Commands and families of version 2, as the spec numbers them. */
const V2_LOCAL = 0x0;
const V2_PROXY = 0x1;
/** Address block bytes each (family, transport) byte needs; datagrams are not this server's. */
const V2_ADDRESS_BYTES = new Map<number, number>([
  [0x00, 0], // UNSPEC
  [0x11, 12], // TCP over IPv4
  [0x21, 36], // TCP over IPv6
  [0x31, 216], // UNIX stream
]);
const V2_DATAGRAMS = new Set([0x12, 0x22, 0x32]);

/** The 12-byte signature, version and command, family and transport, the length of the rest (big-endian), then the rest. */
function parseV2(bytes: Uint8Array): ProxyHeader {
  const early = earlyV2Check(bytes);
  if (early !== undefined) return early;
  if (bytes.length < V2_FIXED_BYTES) return INCOMPLETE;
  const family = bytes[13]!;
  const restLength = (bytes[14]! << 8) | bytes[15]!;
  const length = V2_FIXED_BYTES + restLength;
  if (length > PROXY_V2_MAX_BYTES) return invalid(`a PROXY v2 header is at most ${PROXY_V2_MAX_BYTES} bytes; this one says ${length}`);
  const command = bytes[12]! & 0x0f;
  const addressBytes = V2_ADDRESS_BYTES.get(family);
  if (command === V2_PROXY && addressBytes !== undefined && restLength < addressBytes) return invalid("a PROXY v2 header is shorter than its addresses");
  if (bytes.length < length) return INCOMPLETE;
  if (command === V2_LOCAL) return { state: "complete", length, source: undefined };
  return { state: "complete", length, source: v2Source(bytes, family) };
}

/** What the version, command and family bytes, once received, already rule out. */
function earlyV2Check(bytes: Uint8Array): ProxyHeader | undefined {
  if (bytes.length > 12) {
    const version = bytes[12]! >> 4;
    const command = bytes[12]! & 0x0f;
    if (version !== 2) return invalid(`PROXY v2 version nibble is 2, not ${version}`);
    if (command !== V2_LOCAL && command !== V2_PROXY) return invalid(`PROXY v2 command ${command} is neither LOCAL (0) nor PROXY (1)`);
  }
  if (bytes.length > 13) {
    const family = bytes[13]!;
    if (V2_DATAGRAMS.has(family)) return invalid("a PROXY v2 header for a datagram does not describe a TCP connection");
    if (!V2_ADDRESS_BYTES.has(family))
      return invalid(`PROXY v2 family and transport byte 0x${family.toString(16).padStart(2, "0")} is not one the spec defines`);
  }
  return undefined;
}

/** The source address of a PROXY command's address block; none for UNSPEC and UNIX. */
function v2Source(bytes: Uint8Array, family: number): string | undefined {
  const at = V2_FIXED_BYTES;
  if (family === 0x11) return `${bytes[at]}.${bytes[at + 1]}.${bytes[at + 2]}.${bytes[at + 3]}`;
  if (family === 0x21) {
    const groups: string[] = [];
    for (let group = 0; group < 8; group++) groups.push(((bytes[at + 2 * group]! << 8) | bytes[at + 2 * group + 1]!).toString(16));
    return canonicalAddress(groups.join(":"));
  }
  return undefined;
}

/**
 * Who a client is when it comes through proxies the server trusts (`trustedProxies`): a
 * request whose TCP peer is one of them is keyed by the address the proxies recorded in
 * `X-Forwarded-For`, read from the right (the last proxy appends the address it saw): the
 * right-most address that is not itself a trusted proxy. From any other peer the header is
 * ignored, since anyone can write it. Without the setting the peer is the client, as before.
 *
 * Addresses are parsed here (no `node:net`: the fetch path runs on Workers too), and keyed in
 * one canonical text, so `::ffff:10.0.0.1` and `10.0.0.1` are one client.
 */

/** An address as a number: 32 bits for IPv4 (IPv4-mapped IPv6 included), 128 for IPv6. */
interface ParsedAddress {
  readonly bits: 32 | 128;
  readonly value: bigint;
}

interface Block extends ParsedAddress {
  readonly prefix: number;
}

/**
 * The client address of a request from `peer` carrying `forwardedFor` (the joined
 * `X-Forwarded-For` values); undefined peer stays undefined (a fetch runtime that names none).
 */
export type ClientAddressOf = (peer: string | undefined, forwardedFor: string | null | undefined) => string | undefined;

/**
 * Parses `entries` (addresses or CIDR blocks, IPv4 or IPv6) once; a bad entry throws,
 * naming it. Returns how a request's client address is found.
 */
export function trustProxies(entries: readonly string[]): ClientAddressOf {
  const trusted = trustedBlocks(entries);
  return (peer, forwardedFor) => {
    const peerAddress = peer === undefined ? undefined : parseAddress(peer);
    if (peerAddress === undefined) return peer;
    let client = peerAddress;
    if (trusted(peerAddress) && forwardedFor != null) {
      const hops = forwardedFor.split(",");
      for (let at = hops.length - 1; at >= 0; at--) {
        const hop = parseHop(hops[at]!);
        // A hop that is not an address was not written by a trusted proxy: the last trusted one is the client.
        if (hop === undefined) break;
        client = hop;
        if (!trusted(hop)) break;
      }
    }
    return formatAddress(client);
  };
}

/**
 * Whether a peer address is one of `entries` (parsed once, as `trustProxies` does): the test
 * a connection passes before its PROXY protocol header is read.
 */
export function trustedPeers(entries: readonly string[]): (peer: string) => boolean {
  const trusted = trustedBlocks(entries);
  return (peer) => {
    const address = parseAddress(peer);
    return address !== undefined && trusted(address);
  };
}

function trustedBlocks(entries: readonly string[]): (address: ParsedAddress) => boolean {
  const blocks = entries.map(parseBlock);
  return (address) => blocks.some((block) => contains(block, address));
}

/** `text` in the one form clients are keyed by (IPv4-mapped IPv6 as IPv4), or undefined if it is no address. */
export function canonicalAddress(text: string): string | undefined {
  const address = parseAddress(text);
  return address === undefined ? undefined : formatAddress(address);
}

function parseBlock(entry: string): Block {
  const [addressText = "", prefixText, extra] = entry.trim().split("/");
  const address = parseAddress(addressText);
  // The prefix counts bits of the address as written: 32 for IPv4, 128 for IPv6 (a mapped IPv4 block included).
  const written = addressText.includes(":") ? 128 : 32;
  const prefix = prefixText === undefined ? written : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  // An IPv4-mapped block matches as IPv4: the 96 mapping bits are not part of its prefix.
  const ownPrefix = address?.bits === 32 ? prefix - (written - 32) : prefix;
  if (address === undefined || extra !== undefined || !(prefix <= written) || !(ownPrefix >= 0)) {
    throw new TypeError(`trustedProxies: ${JSON.stringify(entry)} is not an IPv4 or IPv6 address or CIDR block (such as 10.0.0.0/8 or fd00::/8)`);
  }
  return { ...address, prefix: ownPrefix };
}

function contains(block: Block, address: ParsedAddress): boolean {
  if (block.bits !== address.bits) return false;
  const shift = BigInt(block.bits - block.prefix);
  return block.value >> shift === address.value >> shift;
}

/** One `X-Forwarded-For` hop: an address, perhaps with a port (`10.0.0.1:5000`, `[::1]:5000`). */
function parseHop(text: string): ParsedAddress | undefined {
  const hop = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed !== null) return parseAddress(bracketed[1]!);
  const withPort = /^([\d.]+):\d+$/.exec(hop);
  return parseAddress(withPort === null ? hop : withPort[1]!);
}

/** An IPv4 or IPv6 address (a zone such as `%eth0` is dropped); IPv4-mapped IPv6 is IPv4. */
export function parseAddress(text: string): ParsedAddress | undefined {
  const zone = text.indexOf("%");
  const address = zone < 0 ? text : text.slice(0, zone);
  if (!address.includes(":")) {
    const value = parseIpv4(address);
    return value === undefined ? undefined : { bits: 32, value };
  }
  const value = parseIpv6(address.toLowerCase());
  if (value === undefined) return undefined;
  return value >> 32n === 0xffffn ? { bits: 32, value: value & 0xffffffffn } : { bits: 128, value };
}

function parseIpv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return undefined;
  return parts.reduce((value, part) => (value << 8n) | BigInt(part), 0n);
}

function parseIpv6(text: string): bigint | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = halves.map((half) => (half === "" ? [] : half.split(":")));
  // A trailing IPv4 part (`::ffff:10.0.0.1`) is two groups.
  const last = groups[groups.length - 1]!;
  const tail = last.length > 0 && last[last.length - 1]!.includes(".") ? parseIpv4(last.pop()!) : undefined;
  if (tail !== undefined) last.push((tail >> 16n).toString(16), (tail & 0xffffn).toString(16));
  else if (last.some((group) => group.includes("."))) return undefined;
  const count = groups.reduce((sum, half) => sum + half.length, 0);
  if (halves.length === 1 ? count !== 8 : count > 7) return undefined;
  const filled = halves.length === 1 ? groups[0]! : [...groups[0]!, ...Array<string>(8 - count).fill("0"), ...groups[1]!];
  let value = 0n;
  for (const group of filled) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return undefined;
    value = (value << 16n) | BigInt(`0x${group}`);
  }
  return value;
}

/** The canonical text of an address: dotted IPv4; IPv6 as RFC 5952 writes it (the longest run of zero groups as `::`). */
function formatAddress(address: ParsedAddress): string {
  if (address.bits === 32) return [24n, 16n, 8n, 0n].map((shift) => String((address.value >> shift) & 0xffn)).join(".");
  const groups = Array.from({ length: 8 }, (_, at) => Number((address.value >> BigInt(112 - 16 * at)) & 0xffffn));
  let runStart = -1;
  let runLength = 0;
  for (let at = 0; at < 8; at++) {
    let end = at;
    while (end < 8 && groups[end] === 0) end++;
    if (end - at > runLength && end - at >= 2) [runStart, runLength] = [at, end - at];
    at = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (runStart < 0) return hex.join(":");
  return `${hex.slice(0, runStart).join(":")}::${hex.slice(runStart + runLength).join(":")}`;
}

import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP } from "node:net";
import { pipeline, type Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { CliError } from "../errors.js";

// What one download may cost (the defaults: upstream MCP schemas are under 200 KiB and arrive in well under a second).
import { DOWNLOAD_LIMITS, formatSize, type DownloadLimits } from "./limits.js";
export { DOWNLOAD_LIMITS, formatSize, type DownloadLimits };

/** Redirects followed in one download, each to the URL's own origin. */
export const MAX_REDIRECTS = 5;


/**
 * Addresses a download never connects to: link-local ones (where cloud metadata services
 * answer, 169.254.169.254 among them) and the metadata addresses outside that range.
 */
const NEVER_CONTACTED = new BlockList();
NEVER_CONTACTED.addSubnet("169.254.0.0", 16, "ipv4");
NEVER_CONTACTED.addSubnet("fe80::", 10, "ipv6");
NEVER_CONTACTED.addAddress("100.100.100.200", "ipv4"); // Alibaba Cloud's metadata service
NEVER_CONTACTED.addAddress("fd00:ec2::254", "ipv6"); // AWS's metadata service over IPv6

/** True for an address a download must not connect to, IPv4-mapped IPv6 spellings included. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NEVER_CONTACTED.check(address, "ipv4");
  if (family !== 6) return false;
  const mapped = mappedIpv4(address);
  return mapped !== undefined ? NEVER_CONTACTED.check(mapped, "ipv4") : NEVER_CONTACTED.check(address, "ipv6");
}

/** The IPv4 address inside `::ffff:a.b.c.d` or `::ffff:xxxx:yyyy`, if it is one. */
function mappedIpv4(address: string): string | undefined {
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1];
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** A connection refused by the address rule; turned into a CliError naming the URL. */
class ForbiddenAddress extends Error {
  constructor(readonly address: string) {
    super(`refusing to connect to ${address}`);
  }
}

/**
 * The name resolution every download connects through: an address is checked after it is
 * resolved and before the socket connects to it, so a name that points (or is re-pointed)
 * at a forbidden address is never contacted.
 */
function checkedLookup(hostname: string, options: LookupAllOptions | object, callback: (...args: any[]) => void): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error);
    const forbidden = addresses.find((entry) => isForbiddenAddress(entry.address));
    if (forbidden) return callback(new ForbiddenAddress(forbidden.address));
    if ((options as { all?: boolean }).all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/**
 * The body of an http(s) URL, bounded by `limits`. Redirects are followed only within the
 * URL's origin (scheme, host and port), at most MAX_REDIRECTS of them; no link-local or
 * metadata address is ever connected to. Every failure is one CliError line that names the
 * URL and never quotes what the server sent: unreachable, a refused address or redirect,
 * an HTTP error status, too large, too slow, cut off.
 */
export async function download(url: string, limits: DownloadLimits = DOWNLOAD_LIMITS): Promise<Buffer> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let current = new URL(url);
  for (let redirects = 0; ; redirects++) {
    const response = await get(url, current, signal, limits);
    const location = response.headers.location;
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && location !== undefined) {
      response.destroy();
      const next = new URL(location, current);
      if (next.origin !== current.origin) {
        throw new CliError(`${url} redirects to another origin (${next.origin}); only redirects within ${current.origin} are followed`, {
          hint: "pass the final URL, or --schema <path> to a local copy",
        });
      }
      if (redirects === MAX_REDIRECTS) {
        throw new CliError(`${url} redirects more than ${MAX_REDIRECTS} times`, { hint: "pass the final URL, or --schema <path> to a local copy" });
      }
      current = next;
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw new CliError(`fetching ${url} answered HTTP ${status}`, { hint: "check the URL, or pass --schema <path> to a local copy" });
    }
    return readBody(url, response, signal, limits);
  }
}

/** One GET of `target` (a hop of `url`), resolved once the response's headers arrive. */
function get(url: string, target: URL, signal: AbortSignal, limits: DownloadLimits): Promise<IncomingMessage> {
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    return Promise.reject(new CliError(`${url} is not an http(s) URL`, { hint: "pass an http(s) URL, or --schema <path>" }));
  }
  const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
  // A literal address is connected to without a lookup, so it is checked here.
  if (isForbiddenAddress(host)) return Promise.reject(forbidden(url, host));
  const request = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(target, { signal, lookup: checkedLookup, headers: { "accept-encoding": "gzip, deflate, br" } }, resolve);
    outgoing.on("error", (error) => reject(failure(url, error, signal, limits, "cannot reach")));
    outgoing.end();
  });
}

async function readBody(url: string, response: IncomingMessage, signal: AbortSignal, limits: DownloadLimits): Promise<Buffer> {
  const encoding = (response.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  const declared = Number(response.headers["content-length"] ?? 0);
  if (declared > limits.maxBytes && encoding === "identity") {
    response.destroy();
    throw tooLarge(url, limits);
  }
  const decoders: Record<string, () => NodeJS.ReadWriteStream> = {
    gzip: createGunzip,
    "x-gzip": createGunzip,
    deflate: createInflate,
    br: createBrotliDecompress,
  };
  let body: Readable = response;
  if (encoding !== "identity") {
    const decoder = decoders[encoding];
    if (!decoder) {
      response.destroy();
      throw new CliError(`${url} is sent with an unknown content-encoding`, { hint: "pass --schema <path> to a local copy" });
    }
    body = pipeline(response, decoder(), () => undefined) as unknown as Readable;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    // The bytes counted are the unpacked ones: a gzip bomb is stopped at the cap.
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      if (size > limits.maxBytes) throw tooLarge(url, limits);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw failure(url, error, signal, limits, "the download broke off from");
  } finally {
    response.destroy();
  }
  if (!response.complete) throw failure(url, new Error("the connection closed early"), signal, limits, "the download broke off from");
  return Buffer.concat(chunks, size);
}

function tooLarge(url: string, limits: DownloadLimits): CliError {
  return new CliError(`${url} is larger than ${formatSize(limits.maxBytes)} (decompressed)`, {
    hint: "an MCP schema is far smaller: check the URL, or pass --schema <path> to a local copy",
  });
}

function forbidden(url: string, address: string): CliError {
  return new CliError(`${url} leads to ${address}, a link-local or cloud metadata address; refusing to connect`, {
    hint: "pass a public or loopback URL, or --schema <path> to a local copy",
  });
}

function failure(url: string, error: unknown, signal: AbortSignal, limits: DownloadLimits, what: string): CliError {
  if (error instanceof ForbiddenAddress) return forbidden(url, error.address);
  if (signal.aborted) {
    return new CliError(`downloading ${url} took longer than ${limits.timeoutMs / 1000} s`, {
      hint: "check the network, or pass --schema <path> to a local copy of schema.json",
    });
  }
  const { code, cause } = error as { code?: unknown; cause?: { code?: unknown } };
  const reason = typeof code === "string" ? code : typeof cause?.code === "string" ? cause.code : (error as Error).name;
  return new CliError(`${what} ${url} (${reason})`, {
    hint: "check the network or the address, or pass --schema <path> to a local copy of schema.json",
  });
}

import { CliError } from "../errors.js";

/** What one download may cost. */
export interface DownloadLimits {
  /** Bytes after decompression: a gzip bomb is measured by what it unpacks to. */
  maxBytes: number;
  /** From the request to the body's last byte: connecting, a stalled server and a trickling body all count. */
  timeoutMs: number;
}

/** The defaults: upstream MCP schemas are under 200 KiB and arrive in well under a second. */
export const DOWNLOAD_LIMITS: DownloadLimits = { maxBytes: 32 * 1024 * 1024, timeoutMs: 30_000 };

const MIB = 1024 * 1024;

/**
 * The body of an http(s) URL, bounded by `limits`. Every failure is one CliError line that
 * names the URL: unreachable, an HTTP error status, too large, too slow, cut off.
 */
export async function download(url: string, limits: DownloadLimits = DOWNLOAD_LIMITS): Promise<Buffer> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { signal });
  } catch (error) {
    throw failure(url, error, signal, limits, "cannot reach");
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    throw new CliError(`fetching ${url} answered HTTP ${response.status}`, { hint: "check the URL, or pass --schema <path> to a local copy" });
  }
  const declared = Number(response.headers.get("content-length") ?? 0);
  if (declared > limits.maxBytes && !response.headers.has("content-encoding")) {
    await response.body.cancel().catch(() => undefined);
    throw tooLarge(url, limits);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    // Node's fetch decompresses as it goes, so these are the unpacked bytes.
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > limits.maxBytes) throw tooLarge(url, limits);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw failure(url, error, signal, limits, "the download broke off from");
  }
  return Buffer.concat(chunks, size);
}

function tooLarge(url: string, limits: DownloadLimits): CliError {
  return new CliError(`${url} is larger than ${formatSize(limits.maxBytes)} (decompressed)`, {
    hint: "an MCP schema is far smaller: check the URL, or pass --schema <path> to a local copy",
  });
}

function failure(url: string, error: unknown, signal: AbortSignal, limits: DownloadLimits, what: string): CliError {
  if (signal.aborted) {
    return new CliError(`downloading ${url} took longer than ${limits.timeoutMs / 1000} s`, {
      hint: "check the network, or pass --schema <path> to a local copy of schema.json",
    });
  }
  const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
  return new CliError(`${what} ${url} (${cause})`, {
    hint: "check the network or the address, or pass --schema <path> to a local copy of schema.json",
  });
}

export function formatSize(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`;
}

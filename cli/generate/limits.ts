/**
 * How much a schema may be, as a file or a download: apart from download.ts so that a run
 * that reads a file (every `--check`) does not load the network stack to learn the cap.
 */
export interface DownloadLimits {
  /** Bytes after decompression: a gzip bomb is measured by what it unpacks to. */
  maxBytes: number;
  /** From the request to the body's last byte: connecting, a stalled server and a trickling body all count. */
  timeoutMs: number;
}

export const DOWNLOAD_LIMITS: DownloadLimits = { maxBytes: 32 * 1024 * 1024, timeoutMs: 30_000 };

const MIB = 1024 * 1024;

export function formatSize(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`;
}

/**
 * The load side of the HTTP bench: opens listen streams with node:http and counts SSE
 * frames as bytes arrive (a frame ends with a blank line), without parsing JSON, so the
 * client costs the same for every server it measures.
 */
import { Agent, request } from "node:http";

const FRAME_END = Buffer.from("\n\n");
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** Frames received on every stream of this process, and waiters for a total. */
let delivered = 0;
const waiters: Array<{ target: number; resolve: () => void }> = [];

function count(frames: number): void {
  delivered += frames;
  for (let i = waiters.length - 1; i >= 0; i--) {
    if (delivered >= waiters[i]!.target) waiters.splice(i, 1)[0]!.resolve();
  }
}

export function deliveredSoFar(): number {
  return delivered;
}

/** Resolves true once `target` frames arrived in total, false after `timeoutMs`. */
export function deliveredAtLeast(target: number, timeoutMs: number): Promise<boolean> {
  if (delivered >= target) return Promise.resolve(true);
  return new Promise((resolve) => {
    const waiter = { target, resolve: () => (clearTimeout(timer), resolve(true)) };
    const timer = setTimeout(() => {
      waiters.splice(waiters.indexOf(waiter), 1);
      resolve(false);
    }, timeoutMs);
    waiters.push(waiter);
  });
}

export interface Stream {
  /** Resolves with the ms from sending the request to the first frame (the ack). */
  readonly acked: Promise<number>;
  close(): void;
}

export function openStream(port: number, id: number): Stream {
  const body = JSON.stringify({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: META } });
  const started = performance.now();
  let ackResolve!: (ms: number) => void;
  let ackReject!: (error: Error) => void;
  const acked = new Promise<number>((resolve, reject) => ((ackResolve = resolve), (ackReject = reject)));
  const req = request({
    host: "127.0.0.1",
    port,
    path: "/mcp",
    method: "POST",
    agent,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "content-length": Buffer.byteLength(body),
      "mcp-method": "subscriptions/listen",
      "mcp-protocol-version": "2026-07-28",
    },
  });
  let first = true;
  let lastByte = 0;
  req.on("response", (res) => {
    if (res.statusCode !== 200) ackReject(new Error(`listen refused: HTTP ${res.statusCode}`));
    res.on("data", (chunk: Buffer) => {
      // Native search for the blank lines ending frames; one may straddle two chunks.
      let frames = lastByte === 10 && chunk[0] === 10 ? 1 : 0;
      for (let at = chunk.indexOf(FRAME_END); at !== -1; at = chunk.indexOf(FRAME_END, at + 2)) frames++;
      lastByte = chunk[chunk.length - 1]!;
      if (frames === 0) return;
      if (first) {
        first = false;
        ackResolve(performance.now() - started);
      }
      count(frames);
    });
  });
  req.on("error", (error) => ackReject(error));
  req.end(body);
  return { acked, close: () => req.destroy() };
}

/**
 * `serveHttp`'s `proxyProtocol`: a connection from a trusted proxy starts with a PROXY
 * protocol header (proxy-protocol.ts), read here before HTTP sees a byte; the client address
 * it names is what `NodeRequest.remoteAddress` answers for every request on that connection,
 * so per-client shares key on it as they would on the peer. A trusted peer's connection that
 * does not start with a whole, valid header within the wait is closed. A connection from any
 * other peer goes to HTTP untouched: a header it sends is not read, and fails as HTTP.
 *
 * The server's own `connection` listeners (node:http's parser) are moved behind the header:
 * they run once it is read, with the bytes after it put back on the socket.
 */
import type { Server as NodeHttpServer } from "node:http";
import type { Socket } from "node:net";
import { parseProxyHeader } from "./proxy-protocol.js";

/** Time a trusted peer's connection may take to send its header, unless told otherwise. */
export const PROXY_HEADER_TIMEOUT_MS = 5_000;

/** The client address each connection's header named (a connection whose header named none is absent). */
const headerAddresses = new WeakMap<object, string>();

/** The client address the PROXY protocol header of `socket` named, if it had one that named one. */
export function proxiedAddress(socket: object): string | undefined {
  return headerAddresses.get(socket);
}

export interface ProxyHeaderOptions {
  /** Whether a peer's word is taken (`trustedProxies`). */
  readonly trusted: (peer: string) => boolean;
  readonly timeoutMs: number;
}

/** What the gate holds: connections still sending their header, which `close` destroys. */
export interface ProxyHeaderGate {
  close(): void;
}

/** Puts the header reading in front of `httpServer`'s connection handling. */
export function readProxyHeaders(httpServer: NodeHttpServer, options: ProxyHeaderOptions): ProxyHeaderGate {
  const serveConnection = httpServer.listeners("connection") as Array<(socket: Socket) => void>;
  httpServer.removeAllListeners("connection");
  const waiting = new Set<Socket>();
  const serve = (socket: Socket) => {
    for (const listener of serveConnection) listener.call(httpServer, socket);
  };
  httpServer.on("connection", (socket: Socket) => {
    const peer = socket.remoteAddress;
    if (peer === undefined || !options.trusted(peer)) return serve(socket);
    waiting.add(socket);
    awaitHeader(socket, options.timeoutMs, () => {
      waiting.delete(socket);
      serve(socket);
    });
    socket.once("close", () => waiting.delete(socket));
  });
  return {
    close() {
      for (const socket of waiting) socket.destroy();
      waiting.clear();
    },
  };
}

/**
 * Reads `socket` until its header is whole, then records the address, puts back what came
 * after it and calls `ready`; a header that is not valid, or not whole within `timeoutMs`,
 * destroys the socket instead. The bytes held are bounded by the parser, which refuses a
 * header past its limits as soon as it sees one.
 */
function awaitHeader(socket: Socket, timeoutMs: number, ready: () => void): void {
  let received: Buffer = Buffer.alloc(0);
  const timer = setTimeout(() => finish(false), timeoutMs);
  // Until HTTP has the socket nothing else listens for its errors; one here only ends it.
  const onError = () => finish(false);
  const onData = (chunk: Buffer) => {
    received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
    const header = parseProxyHeader(received);
    if (header.state === "incomplete") return;
    if (header.state === "invalid") return finish(false);
    if (header.source !== undefined) headerAddresses.set(socket, header.source);
    socket.pause();
    const rest = received.subarray(header.length);
    if (rest.length > 0) socket.unshift(rest);
    finish(true);
  };
  const finish = (served: boolean) => {
    clearTimeout(timer);
    socket.off("data", onData);
    socket.off("error", onError);
    socket.off("close", onClose);
    if (!served) return void socket.destroy();
    ready();
    // HTTP's own data listener is on now: the bytes put back reach it first, then the rest.
    socket.resume();
  };
  const onClose = () => finish(false);
  socket.on("data", onData);
  socket.on("error", onError);
  socket.once("close", onClose);
}

/**
 * The runtime's entry for transports and adapters (see README.md, "Runtime entries"):
 * the transport contract and its registry, the framing and clients a transport is built
 * from, the in-memory pairs, and the JSON-RPC helpers. A server author needs none of it:
 * stdio and HTTP serving are on the main entry.
 */
export { getTransport, registerTransport, SlowConsumerEvicted, supportsPush, TransportClosedError } from "../transport.js";
export type {
  MessageContext,
  ReceivedMessage,
  SharedText,
  Transport,
  TransportCapability,
  TransportClass,
  TransportEvent,
  TransportListener,
} from "../transport.js";
export { classifyMessage, errorResponse, parseMessage } from "../jsonrpc.js";
export { NdjsonTransport } from "./ndjson.js";
export type { NdjsonOptions } from "./ndjson.js";
export { StdioClientTransport } from "./stdio.js";
export type { StdioClientOptions } from "./stdio.js";
export { createInProcessTransportPair, createTestTransportPair, InProcessTransport, TestTransport } from "./memory.js";
export type { MemoryPairOptions, TransportPair } from "./memory.js";
// What an HTTP adapter needs of a server, and the tool header parameters it checks.
export type { ConnectableServer } from "./http-server.js";
export type { ParamHeader } from "./param-headers.js";
// The endpoint inside Express and Hono, as thin adapters of the same core.
export { toExpressMiddleware, toHonoHandler } from "./http-frameworks.js";
export type { ExpressLikeRequest, HonoLikeContext } from "./http-frameworks.js";
export { HttpClientTransport, HttpStreamClosedError } from "./http-client.js";
// The client transport's pieces, for a client of another shape (a session-based legacy one): the bounded SSE and body readers.
export { DEFAULT_MAX_MESSAGE_BYTES, HttpStatusError, httpStatusOf, readText, sseMessages } from "./http-client.js";
// Whether a failed server/discover means "an initialize-era server" (fall back) or something else.
export { refusesDiscover } from "../client/refusal.js";
export type { HttpClientTransportOptions } from "./http-client.js";
// fetch with redirects followed only within the URL's origin, so credentials stay there.
export { DEFAULT_MAX_REDIRECTS, fetchWithinOrigin, HttpRedirectError } from "./http-redirects.js";

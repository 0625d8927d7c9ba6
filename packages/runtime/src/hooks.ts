/**
 * What the runtime reports to `createServer({ onEvent })`: the server's own log of stream
 * lifecycles and failures. Stop reasons and handler errors end here, never at the client.
 */
import type { RequestId } from "./jsonrpc.js";
import type { StopReason } from "./subscriptions/types.js";
import type { SubscriptionFilter } from "./protocol.js";

/**
 * How a stream ended when its handler did not choose to stop. "evicted": the transport
 * cut a client that stopped reading while the server's buffered output was over budget
 * (see transports/http-sse.ts).
 */
export type StreamEndCause = "cancelled" | "transport-closed" | "shutdown" | "overflow" | "handler-error" | "evicted";

/**
 * `handler-error`: `callback` is the method or hook that failed; `tool` names the tool when a
 * `tools/call`'s run threw (the client got an `isError` result) or its result broke the
 * outputSchema (a ToolOutputError, whose `cause` is where the tool was added; the client got -32603).
 */
export type RuntimeEvent =
  | { type: "stream-opened"; id: RequestId; honored: SubscriptionFilter }
  | { type: "stream-rejected"; id: RequestId; reason: unknown }
  | { type: "stream-stopped"; id: RequestId; reason: StopReason }
  | { type: "stream-closed"; id: RequestId; cause: StreamEndCause }
  | { type: "message-coalesced"; id: RequestId }
  | { type: "handler-error"; id: RequestId | null; callback: string; error: unknown; tool?: string }
  | { type: "transport-error"; error: unknown };

export type EventHook = (event: RuntimeEvent) => void;

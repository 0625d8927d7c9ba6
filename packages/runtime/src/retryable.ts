/**
 * Failures that mean "something this request needs is away for now": a broker out of reach, a
 * store that does not answer. The client is told that a retry may succeed, rather than that
 * the server failed, and the failure is still reported through `onEvent` (`handler-error`)
 * with its cause. An error says so with `retryable: true`, on itself or on one of its causes,
 * so that a store outside the runtime (the Redis ones a project gets) marks its errors
 * without importing anything.
 */

import { INTERNAL_ERROR, INVALID_PARAMS, McpError } from "./jsonrpc.js";

/** How deep `cause` is followed: a cause may lead back to itself. */
const MAX_CAUSES = 5;

/** Whether `error`, or one of its causes, says it is `retryable`. */
export function isRetryable(error: unknown): boolean {
  for (let depth = 0; depth < MAX_CAUSES && typeof error === "object" && error !== null; depth++) {
    if ((error as { retryable?: unknown }).retryable === true) return true;
    error = (error as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The JSON-RPC message for a request that failed on a retryable error. The cause stays in the
 * log: it may name hosts and ports the client has no business knowing.
 */
export function retryMessage(method: string): string {
  return `${method} needs a service this server cannot reach right now; retry the request shortly`;
}

/**
 * What a client is told of a listen a handler refused (`{ stop: reason }`): an McpError as it
 * is; a retryable reason (a broker away for now) -32603 saying to listen again; any other
 * reason stays in the log, the client told only that the subscription was declined.
 */
export function refusalError(refusal: unknown): McpError {
  if (refusal instanceof McpError) return refusal;
  if (isRetryable(refusal)) return new McpError(INTERNAL_ERROR, "The server cannot serve this subscription right now; listen again shortly");
  return new McpError(INVALID_PARAMS, "The server declined this subscription");
}

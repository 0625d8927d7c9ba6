/**
 * The client's answers to what a server asks of it: elicitation, sampling and roots, the
 * same handlers whether the question came in a 2026-07-28 `input_required` round or as a
 * 2025-11-25 server request. An accepted elicitation gets the requested schema's defaults
 * for the fields the handler left out (SEP-1034: a client pre-fills them).
 */
import type { InputMethod, InputResultOf } from "../input-required.js";
import { McpError } from "../jsonrpc.js";
import { ERROR_CODES, type ClientCapabilities, type InputRequest } from "../protocol.js";

/** Answers the server's input requests: in a 2026-07-28 `input_required` round, or as a 2025-11-25 server request. */
export type InputHandlers = {
  readonly [M in InputMethod]?: (params: Extract<InputRequest, { method: M }>["params"]) => InputResultOf[M] | Promise<InputResultOf[M]>;
};

/** The capabilities the input handlers imply: each one given declares what it answers. */
export function capabilitiesOf(handlers: InputHandlers): ClientCapabilities {
  const capabilities: Record<string, object> = {};
  if (handlers["elicitation/create"] !== undefined) capabilities["elicitation"] = {};
  if (handlers["sampling/createMessage"] !== undefined) capabilities["sampling"] = {};
  if (handlers["roots/list"] !== undefined) capabilities["roots"] = {};
  return capabilities as ClientCapabilities;
}

/** The handler's answer to one input request; `cause` names the request that asked, for the error without a handler. */
export async function answerInput(handlers: InputHandlers, cause: string, method: string, params: unknown): Promise<unknown> {
  const handler = (handlers as Record<string, ((params: unknown) => unknown) | undefined>)[method];
  if (handler === undefined) {
    throw new McpError(ERROR_CODES.InvalidRequestError, `${cause}: the server asked for ${method}; pass inputHandlers["${method}"] to answer it`);
  }
  const answer = await handler(params);
  return method === "elicitation/create" ? withDefaults(params, answer) : answer;
}

/** An accepted form answer completed with the `default` of every requested property it lacks. */
function withDefaults(params: unknown, answer: unknown): unknown {
  const { action, content } = (answer ?? {}) as { action?: unknown; content?: Record<string, unknown> };
  const properties = (params as { requestedSchema?: { properties?: Record<string, { default?: unknown }> } } | undefined)?.requestedSchema?.properties;
  if (action !== "accept" || properties === undefined) return answer;
  const filled: Record<string, unknown> = { ...content };
  for (const [key, property] of Object.entries(properties)) {
    if (!(key in filled) && property?.default !== undefined) filled[key] = property.default;
  }
  return { ...(answer as object), content: filled };
}

/**
 * An input-required answer (input-required.ts) served to a legacy client: the runtime
 * asks the client itself, as a 2025-11-25 server does, by sending each input request as a
 * server-to-client request, then runs the handler again with the answers as
 * `inputResponses` and the sealed `requestState` unchanged, exactly the retry a newer
 * client would send. A handler is written once for both eras. Only what the client
 * declared in `initialize` is asked; the rounds of one request are bounded.
 */
import type { InputMethod } from "../input-required.js";
import type { Rounds } from "../era.js";
import { errorResponse, INTERNAL_ERROR, INVALID_REQUEST, isObject, McpError, type JsonObject, type JsonRpcRequest, type JsonRpcResponse } from "../jsonrpc.js";
import type * as Legacy from "./protocol.js";
import { ClientRequestFailed } from "./server-requests.js";

export const INPUT_REQUIRED = "input_required";

/** Rounds one request may take before it fails: a handler that keeps asking would otherwise hold the client forever. */
export const MAX_INPUT_ROUNDS = 16;

/**
 * The client capability each input request needs (the schemas list the capabilities and
 * the requests, not which needs which). A record over `InputMethod`: a new input request
 * kind fails the type check until it is placed here.
 */
const REQUIRED_CAPABILITY: Readonly<Record<InputMethod, keyof Legacy.ClientCapabilities>> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/** What the connection running the request lends each round: its abort signal and the handler, run again. */
export type { Rounds };

/** What the session lends: the client's declared capabilities, what its revision can receive, and its outgoing requests. */
export interface InputAsker {
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** Why this client's protocol revision cannot receive the request (codec.ts); undefined when it can. */
  refusal(method: string, params: JsonObject): string | undefined;
  fits(count: number): boolean;
  ask(method: string, params: JsonObject, signal: AbortSignal): Promise<JsonObject>;
}

/** Serves input-required answers until the handler completes (or a round fails); other answers pass through. */
export async function serveInputRounds(request: JsonRpcRequest, first: JsonRpcResponse, rounds: Rounds, asker: InputAsker): Promise<JsonRpcResponse> {
  const { id, method } = request;
  let response = first;
  for (let round = 0; ; round++) {
    if ("error" in response || response.result["resultType"] !== INPUT_REQUIRED) return response;
    if (round === MAX_INPUT_ROUNDS) {
      return errorResponse(id, INTERNAL_ERROR, `${method} asked for more input ${MAX_INPUT_ROUNDS} times in a row; the server gave up on this request`);
    }
    const asked = inputRequestsOf(response.result);
    if (asked === undefined) return errorResponse(id, INTERNAL_ERROR, `${method} answered input_required without inputRequests`);
    for (const { method: asks, params } of Object.values(asked)) {
      const refusal = asker.refusal(asks, params);
      if (refusal !== undefined) return errorResponse(id, INVALID_REQUEST, `${method} needs to send ${asks}, which this client cannot receive: ${refusal}`);
    }
    const undeclared = undeclaredCapability(Object.values(asked), asker.clientCapabilities);
    if (undeclared !== undefined) {
      return errorResponse(
        id,
        INVALID_REQUEST,
        `${method} needs to send ${undeclared.method}, which needs the client capability "${undeclared.needs}"; this client's initialize did not declare it`,
        {
          requiredCapabilities: { [undeclared.needs]: {} },
        },
      );
    }
    if (!asker.fits(Object.keys(asked).length)) {
      return errorResponse(id, INTERNAL_ERROR, `${method} needs more answers from this client than may wait at once; retry when earlier requests are answered`);
    }
    let answers: JsonObject;
    try {
      answers = await askAll(method, asked, rounds, asker);
    } catch (error) {
      // A refusal from input middleware (useInput) is the request's answer, as from a handler.
      if (error instanceof McpError) return errorResponse(id, error.code, error.message, error.data);
      if (!(error instanceof ClientRequestFailed)) throw error;
      return errorResponse(id, INTERNAL_ERROR, `${method} could not get the input it needs: ${error.message}`, error.clientError);
    }
    const params: JsonObject = { ...request.params, inputResponses: answers };
    if (typeof response.result["requestState"] === "string") params["requestState"] = response.result["requestState"];
    else delete params["requestState"];
    response = await rounds.dispatch({ ...request, params });
  }
}

type Asked = Record<string, { method: string; params: JsonObject }>;

function inputRequestsOf(result: JsonObject): Asked | undefined {
  const requests = result["inputRequests"];
  if (!isObject(requests)) return undefined;
  const asked: Asked = {};
  for (const [key, value] of Object.entries(requests)) {
    if (!isObject(value) || typeof value["method"] !== "string") return undefined;
    asked[key] = { method: value["method"], params: isObject(value["params"]) ? value["params"] : {} };
  }
  return Object.keys(asked).length === 0 ? undefined : asked;
}

/** The first request the client's capabilities do not cover, with the capability it needs. */
function undeclaredCapability(requests: readonly Asked[string][], declared: Readonly<Record<string, unknown>>): { method: string; needs: string } | undefined {
  for (const { method, params } of requests) {
    const needs = Object.hasOwn(REQUIRED_CAPABILITY, method) ? REQUIRED_CAPABILITY[method as InputMethod] : undefined;
    if (needs === undefined) return { method, needs: method };
    const capability = declared[needs];
    if (!isObject(capability)) return { method, needs };
    const sub = subCapability(method, params, capability);
    if (sub !== undefined) return { method, needs: `${needs}.${sub}` };
  }
  return undefined;
}

/** The part of a declared capability a request's shape needs (2025-11-25: elicitation modes; sampling with tools or context). */
function subCapability(method: string, params: JsonObject, capability: JsonObject): string | undefined {
  if (method === ("elicitation/create" satisfies InputMethod)) {
    const mode = params["mode"] === "url" ? "url" : "form";
    // An empty elicitation capability means form mode only.
    const declaresModes = "form" in capability || "url" in capability;
    if (mode === "url" ? !isObject(capability["url"]) : declaresModes && !isObject(capability["form"])) return mode;
  }
  if (method === ("sampling/createMessage" satisfies InputMethod)) {
    if (params["tools"] !== undefined && !isObject(capability["tools"])) return "tools";
    // Without sampling.context a server only uses includeContext "none" (the capability's own description).
    if (params["includeContext"] !== undefined && params["includeContext"] !== "none" && !isObject(capability["context"])) return "context";
  }
  return undefined;
}

/**
 * Asks every request at once, each through the server's input middleware (`rounds.ask`); the
 * first failure cancels the rest. Params a middleware changed are checked again against what
 * the client's revision can carry; what it answers must be a result object.
 */
async function askAll(asking: string, asked: Asked, rounds: Rounds, asker: InputAsker): Promise<JsonObject> {
  const { signal } = rounds;
  const group = new AbortController();
  const onAbort = () => group.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  const send = (method: string, params: JsonObject, sent: JsonObject): Promise<JsonObject> => {
    const refusal = sent === params ? undefined : asker.refusal(method, sent);
    if (refusal !== undefined) throw new McpError(INVALID_REQUEST, `${asking} needs to send ${method}, which this client cannot receive: ${refusal}`);
    return asker.ask(method, sent, group.signal);
  };
  try {
    const entries = await Promise.all(
      Object.entries(asked).map(async ([key, { method, params }]) => {
        const answer = await rounds.ask(method, params, (sent) => send(method, params, sent));
        if (!isObject(answer)) throw new TypeError(`the input middleware of ${method} answered no result object`);
        return [key, answer] as const;
      }),
    );
    return Object.fromEntries(entries);
  } catch (error) {
    group.abort();
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * Multi-round requests (SEP-2322) for the conformance scenarios: a tool (or prompt) answers
 * `input_required` with the requests it needs, and the client retries with
 * `inputResponses` (and the echoed `requestState`). State is HMAC-signed, so a tampered
 * state is refused (-32602); missing answers are asked for again, malformed ones refused.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { McpError, type RequestContext } from "../../../templates/runtime/index.js";
import { ERROR_CODES, META_KEYS } from "../../../generated/v2607/capabilities.js";
import { text, type Catalog, type InputRequired, type RetryParams } from "./catalog.js";

const KEY = randomBytes(32);

function sign(state: string): string {
  const mac = createHmac("sha256", KEY).update(state).digest("base64url");
  return `${Buffer.from(state).toString("base64url")}.${mac}`;
}

/** The state a client echoed, or an error when it was altered. */
function verify(signed: string | undefined): string | undefined {
  if (signed === undefined) return undefined;
  const [body = "", mac = ""] = signed.split(".");
  const state = Buffer.from(body, "base64url").toString();
  const expected = Buffer.from(createHmac("sha256", KEY).update(state).digest("base64url"));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new McpError(ERROR_CODES.InvalidParamsError, "requestState failed its integrity check");
  }
  return state;
}

/** The client's answers: undefined when none were sent; -32602 when they are not a map. */
function responsesOf(params: RetryParams): Record<string, any> | undefined {
  const responses = params.inputResponses;
  if (responses === undefined) return undefined;
  if (responses === null || typeof responses !== "object" || Array.isArray(responses)) {
    throw new McpError(ERROR_CODES.InvalidParamsError, "inputResponses must be an object keyed by input request");
  }
  for (const [key, value] of Object.entries(responses)) {
    if (value === null || typeof value !== "object") throw new McpError(ERROR_CODES.InvalidParamsError, `inputResponses.${key} must be an object`);
  }
  return responses as Record<string, any>;
}

const elicit = (message: string, field: string, type = "string") => ({
  method: "elicitation/create",
  params: { mode: "form", message, requestedSchema: { type: "object", properties: { [field]: { type } }, required: [field] } },
});
const sample = (prompt: string, maxTokens: number) => ({
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens },
});
const roots = { method: "roots/list", params: {} };

function ask(inputRequests: Record<string, object>, state?: string): InputRequired {
  return state === undefined ? { resultType: "input_required", inputRequests } : { resultType: "input_required", inputRequests, requestState: sign(state) };
}

/** Completes once every key has an answer; otherwise asks (again) for what is missing. */
function oneRound(requests: Record<string, object>, state: string | undefined, done: (responses: Record<string, any>) => string) {
  return (params: RetryParams) => {
    const responses = responsesOf(params);
    if (state !== undefined && responses !== undefined && verify(params.requestState) !== state) {
      throw new McpError(ERROR_CODES.InvalidParamsError, "requestState does not belong to this request");
    }
    const missing = Object.fromEntries(Object.entries(requests).filter(([key]) => responses?.[key] === undefined));
    if (Object.keys(missing).length > 0) return ask(missing, state);
    return text(done(responses!));
  };
}

export function addInputRequired(catalog: Catalog): void {
  catalog.tool(
    "test_input_required_result_elicitation",
    "Asks for a name",
    oneRound({ user_name: elicit("What is your name?", "name") }, undefined, (r) => `Hello, ${r.user_name.content?.name ?? "stranger"}!`),
  );
  catalog.tool(
    "test_input_required_result_sampling",
    "Asks the client's model",
    oneRound(
      { capital_question: sample("What is the capital of France?", 100) },
      undefined,
      (r) => `The model said: ${r.capital_question.content?.text ?? ""}`,
    ),
  );
  catalog.tool(
    "test_input_required_result_list_roots",
    "Asks for the client's roots",
    oneRound({ client_roots: roots }, undefined, (r) => `Roots: ${(r.client_roots.roots ?? []).map((root: { uri: string }) => root.uri).join(", ")}`),
  );
  catalog.tool(
    "test_input_required_result_request_state",
    "Round-trips a signed state",
    oneRound({ confirm: elicit("Please confirm", "ok", "boolean") }, "request-state", () => "state-ok: confirmed"),
  );
  catalog.tool(
    "test_input_required_result_tampered_state",
    "Refuses an altered state",
    oneRound({ confirm: elicit("Please confirm", "ok", "boolean") }, "tamper-check", () => "state-ok"),
  );
  catalog.tool(
    "test_input_required_result_multiple_inputs",
    "Asks for three inputs at once",
    oneRound(
      { user_name: elicit("What is your name?", "name"), greeting: sample("Generate a greeting", 50), client_roots: roots },
      "multiple",
      () => "all inputs received",
    ),
  );
  catalog.tool("test_input_required_result_multi_round", "Asks twice, with evolving state", multiRound);
  catalog.tool("test_input_required_result_capabilities", "Asks only for what the client declared", (params, context) => byCapabilities(params, context));
  catalog.prompt({ name: "test_input_required_result_prompt", description: "A prompt that needs context first" }, (params) => {
    const responses = responsesOf(params);
    if (responses?.user_context === undefined) return ask({ user_context: elicit("What context should the prompt use?", "context") });
    return { messages: [{ role: "user", content: { type: "text", text: `Context: ${responses.user_context.content?.context ?? ""}` } }] };
  });
}

function multiRound(params: RetryParams) {
  const responses = responsesOf(params);
  const state = responses === undefined ? undefined : verify(params.requestState);
  if (state === "round-2" && responses?.step2 !== undefined) return text(`Done: ${responses.step2.content?.color ?? ""}`);
  if (state === "round-1" && responses?.step1 !== undefined) return ask({ step2: elicit("Step 2: What is your favorite color?", "color") }, "round-2");
  return ask({ step1: elicit("Step 1: What is your name?", "name") }, "round-1");
}

function byCapabilities(params: RetryParams, context: RequestContext) {
  if (responsesOf(params) !== undefined) return text("inputs received");
  const declared = (context.meta[META_KEYS.clientCapabilities] ?? {}) as Record<string, unknown>;
  const requests: Record<string, object> = {};
  if (declared.elicitation !== undefined) requests.user_name = elicit("What is your name?", "name");
  if (declared.sampling !== undefined) requests.greeting = sample("Generate a greeting", 50);
  if (declared.roots !== undefined) requests.client_roots = roots;
  return Object.keys(requests).length > 0 ? ask(requests) : text("the client declared no capability to ask through");
}

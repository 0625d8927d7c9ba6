/**
 * Multi-round requests (SEP-2322) for the conformance scenarios, through the runtime's
 * `InputRound`: a tool (or prompt) answers `input_required` with `input.ask(...)`, and the
 * client retries with `inputResponses` and the echoed `requestState`, which the runtime
 * has verified (sealed with the server key) before the tool runs; missing answers are
 * asked for again.
 */
import { inputRequest, type InputRound, type RequestContext, type Server, type ToolRunner } from "../../../../packages/runtime/src/index.js";
import { META_KEYS } from "../../../../generated/index.js";
import { text } from "./everything.js";

const elicit = (message: string, field: string, type = "string") =>
  inputRequest.elicit({ mode: "form", message, requestedSchema: { type: "object", properties: { [field]: { type } as never }, required: [field] } });
const sample = (prompt: string, maxTokens: number) => inputRequest.sample({ messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens });
const roots = inputRequest.listRoots();

type Requests = Parameters<InputRound["ask"]>[0];

/** Completes once every key has an answer; otherwise asks (again) for what is missing. */
function oneRound(requests: Requests, state: string | undefined, done: (input: InputRound) => string) {
  return (_args: unknown, _context: RequestContext, input: InputRound) => {
    const missing = Object.fromEntries(Object.entries(requests).filter(([key]) => input.responses?.[key] === undefined));
    if (Object.keys(missing).length > 0 || (state !== undefined && input.state !== state))
      return input.ask(Object.keys(missing).length > 0 ? missing : requests, state);
    return text(done(input));
  };
}

export function addInputRequired(server: Server): void {
  const tool = (name: string, description: string, run: ToolRunner) =>
    server.addTool({ name, description, inputSchema: { type: "object" } }, run);
  tool(
    "test_input_required_result_elicitation",
    "Asks for a name",
    oneRound({ user_name: elicit("What is your name?", "name") }, undefined, (input) => {
      const answer = input.response("user_name", "elicitation/create");
      return `Hello, ${answer?.content?.name ?? "stranger"}!`;
    }),
  );
  tool(
    "test_input_required_result_sampling",
    "Asks the client's model",
    oneRound({ capital_question: sample("What is the capital of France?", 100) }, undefined, (input) => {
      const answer = input.response("capital_question", "sampling/createMessage");
      const content = answer?.content;
      return `The model said: ${content !== undefined && !Array.isArray(content) && content.type === "text" ? content.text : ""}`;
    }),
  );
  tool(
    "test_input_required_result_list_roots",
    "Asks for the client's roots",
    oneRound({ client_roots: roots }, undefined, (input) => {
      const answer = input.response("client_roots", "roots/list");
      return `Roots: ${(answer?.roots ?? []).map((root) => root.uri).join(", ")}`;
    }),
  );
  tool(
    "test_input_required_result_request_state",
    "Round-trips a sealed state",
    oneRound({ confirm: elicit("Please confirm", "ok", "boolean") }, "request-state", () => "state-ok: confirmed"),
  );
  tool(
    "test_input_required_result_tampered_state",
    "Refuses an altered state",
    oneRound({ confirm: elicit("Please confirm", "ok", "boolean") }, "tamper-check", () => "state-ok"),
  );
  tool(
    "test_input_required_result_multiple_inputs",
    "Asks for three inputs at once",
    oneRound(
      { user_name: elicit("What is your name?", "name"), greeting: sample("Generate a greeting", 50), client_roots: roots },
      "multiple",
      () => "all inputs received",
    ),
  );
  tool("test_input_required_result_multi_round", "Asks twice, with evolving state", (_args, _context, input) => multiRound(input));
  tool("test_input_required_result_capabilities", "Asks only for what the client declared", (_args, context, input) => byCapabilities(input, context));
  server.addPrompt({ name: "test_input_required_result_prompt", description: "A prompt that needs context first" }, (_args, _context, input) => {
    const answer = input.response("user_context", "elicitation/create");
    if (answer === undefined) return input.ask({ user_context: elicit("What context should the prompt use?", "context") });
    return { messages: [{ role: "user", content: { type: "text", text: `Context: ${answer.content?.context ?? ""}` } }] };
  });
}

function multiRound(input: InputRound) {
  if (input.state === "round-2" && input.responses?.step2 !== undefined)
    return text(`Done: ${input.response("step2", "elicitation/create")?.content?.color ?? ""}`);
  if (input.state === "round-1" && input.responses?.step1 !== undefined)
    return input.ask({ step2: elicit("Step 2: What is your favorite color?", "color") }, "round-2");
  return input.ask({ step1: elicit("Step 1: What is your name?", "name") }, "round-1");
}

function byCapabilities(input: InputRound, context: RequestContext) {
  if (input.responses !== undefined) return text("inputs received");
  const declared = (context.meta[META_KEYS.clientCapabilities] ?? {}) as Record<string, unknown>;
  const requests: Requests = {};
  if (declared.elicitation !== undefined) requests.user_name = elicit("What is your name?", "name");
  if (declared.sampling !== undefined) requests.greeting = sample("Generate a greeting", 50);
  if (declared.roots !== undefined) requests.client_roots = roots;
  return Object.keys(requests).length > 0 ? input.ask(requests) : text("the client declared no capability to ask through");
}

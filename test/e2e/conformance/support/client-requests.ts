/**
 * The tools of the 2025-11-25 conformance catalog that ask the client for something
 * (sampling, elicitation with defaults and with every enum shape), written once the
 * 2026-07-28 way, with `input.ask`: a newer client gets an input_required result and
 * retries, a legacy session is sent the server-to-client request by the runtime. Each
 * answer is what the scenario's own description asks for.
 */
import { inputRequest, type InputRound, type Server, type ToolRunner } from "../../../../packages/runtime/src/index.js";
import type { ElicitRequestFormParams } from "../../../../generated/index.js";
import { text } from "./everything.js";

type Schema = ElicitRequestFormParams["requestedSchema"];
type Properties = Schema["properties"];

const elicitForm = (message: string, properties: Record<string, unknown>, required?: string[]) =>
  inputRequest.elicit({
    mode: "form",
    message,
    requestedSchema: { type: "object", properties: properties as Properties, ...(required === undefined ? {} : { required }) },
  });

const DEFAULTS = {
  name: { type: "string", default: "John Doe" },
  age: { type: "integer", default: 30 },
  score: { type: "number", default: 95.5 },
  status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
  verified: { type: "boolean", default: true },
};

const ENUMS = {
  untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
  titledSingle: {
    type: "string",
    oneOf: [
      { const: "value1", title: "First Option" },
      { const: "value2", title: "Second Option" },
      { const: "value3", title: "Third Option" },
    ],
  },
  legacyEnum: { type: "string", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
  untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
  titledMulti: {
    type: "array",
    items: {
      anyOf: [
        { const: "value1", title: "First Choice" },
        { const: "value2", title: "Second Choice" },
        { const: "value3", title: "Third Choice" },
      ],
    },
  },
};

/** The elicitation's outcome as the catalog's tools report it. */
function elicited(input: InputRound, key: string, prefix: string) {
  const answer = input.response(key, "elicitation/create");
  return text(`${prefix}action=${answer?.action ?? "none"}, content=${JSON.stringify(answer?.content ?? {})}`);
}

export function addClientRequestTools(server: Server): void {
  const tool = (name: string, description: string, run: ToolRunner, properties: Record<string, unknown> = {}) =>
    server.addTool({ name, description, inputSchema: { type: "object", properties: properties as never } }, run);
  tool(
    "test_sampling",
    "Asks the client's model to answer the prompt",
    (args, _context, input) => {
      const answer = input.response("llm", "sampling/createMessage");
      if (answer === undefined) {
        return input.ask({ llm: inputRequest.sample({ messages: [{ role: "user", content: { type: "text", text: String(args.prompt) } }], maxTokens: 100 }) });
      }
      const content = answer.content;
      return text(`LLM response: ${!Array.isArray(content) && content.type === "text" ? content.text : JSON.stringify(content)}`);
    },
    { prompt: { type: "string" } },
  );
  tool(
    "test_elicitation",
    "Asks the user for a username and email",
    (args, _context, input) => {
      if (input.responses === undefined) {
        const properties = { username: { type: "string", description: "User's response" }, email: { type: "string", description: "User's email address" } };
        return input.ask({ user: elicitForm(String(args.message), properties, ["username", "email"]) });
      }
      return elicited(input, "user", "User response: ");
    },
    { message: { type: "string" } },
  );
  tool("test_elicitation_sep1034_defaults", "Asks with a default for every primitive type", (_args, _context, input) =>
    input.responses === undefined
      ? input.ask({ form: elicitForm("Please review the defaults", DEFAULTS) })
      : elicited(input, "form", "Elicitation completed: "),
  );
  tool("test_elicitation_sep1330_enums", "Asks with every enum shape", (_args, _context, input) =>
    input.responses === undefined ? input.ask({ form: elicitForm("Please choose", ENUMS) }) : elicited(input, "form", "Elicitation completed: "),
  );
}

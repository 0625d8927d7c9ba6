/**
 * An application with one tool that asks the user a question, written once the 2026-07-28
 * way (`input.ask` with an elicitation, then the answer on the retry): a newer client
 * answers the input_required result, a legacy client is sent `elicitation/create`.
 */
import { createServer, inputRequest, type Server } from "../../packages/runtime/src/index.js";

export const ASK_TOOL = "ask_name";

export function createAskingServer(name: string): Server {
  const server = createServer({ name, version: "1.0.0" });
  server.addTool({ name: ASK_TOOL, description: "Greets the user by the name they give", inputSchema: { type: "object" } }, (_args, _context, input) => {
    const answer = input.response("name", "elicitation/create");
    if (answer === undefined) {
      const requestedSchema = { type: "object" as const, properties: { name: { type: "string" as const } }, required: ["name"] };
      return input.ask({ name: inputRequest.elicit({ mode: "form", message: "What is your name?", requestedSchema }) });
    }
    const text = answer.action === "accept" ? `Hello, ${String(answer.content?.name)}!` : `No name given (${answer.action})`;
    return { content: [{ type: "text", text }] };
  });
  return server;
}

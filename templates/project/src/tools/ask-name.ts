import { inputRequest, type Server } from "../mcp.js";

/**
 * A tool that asks the user a question. The first call answers `input_required` with a
 * form asking for a name; the client shows it and calls again with the answer (and the
 * request state, which the server sealed and checks). That retry reads the answer here.
 */
export function addAskNameTool(server: Server): void {
  server.addTool(
    {
      name: "ask_name",
      description: "Asks for your name, then greets you by it.",
      inputSchema: { type: "object", properties: {} },
    },
    (_args, _context, input) => {
      const answer = input.response("name", "elicitation/create");
      if (answer === undefined) {
        return input.ask({
          name: inputRequest.elicit({
            mode: "form",
            message: "What is your name?",
            requestedSchema: {
              type: "object",
              properties: { name: { type: "string", title: "Your name" } },
              required: ["name"],
            },
          }),
        });
      }
      if (answer.action !== "accept" || typeof answer.content?.name !== "string") {
        return { content: [{ type: "text", text: "No name given; maybe next time." }] };
      }
      return { content: [{ type: "text", text: `Nice to meet you, ${answer.content.name}!` }] };
    },
  );
}

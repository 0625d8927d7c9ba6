import type { EventSource, Server } from "./generated/v2607/runtime/index.js";
import type { AppEvents } from "./events.js";

const greetTool = {
  name: "greet",
  description: "Greets someone by name.",
  inputSchema: {
    type: "object" as const,
    properties: { name: { type: "string", description: "who to greet" } },
  },
};

/**
 * A demo anyone can run: `toggle_greet` adds the `greet` tool, or removes it again. Each
 * call changes the tool list, and publishing on the "tools" topic is what makes every
 * listening client receive `notifications/tools/list_changed`.
 */
export function addSampleTools(server: Server, events: EventSource<AppEvents>): void {
  let greeting = false;
  server.addTool(
    {
      name: "toggle_greet",
      description: "Adds the greet tool, or removes it; listeners are told the tool list changed.",
      inputSchema: { type: "object", properties: {} },
    },
    async () => {
      greeting = !greeting;
      if (greeting) {
        server.addTool(greetTool, async (args) => ({
          content: [{ type: "text", text: `Hello, ${String(args?.name ?? "world")}!` }],
        }));
      } else {
        server.removeTool(greetTool.name);
      }
      await events.publish("tools", { reason: greeting ? "greet added" : "greet removed" });
      return {
        content: [
          { type: "text", text: greeting ? "greet is now available" : "greet was removed" },
        ],
      };
    },
  );
}

/**
 * The server the official conformance suite runs against: built on the generated runtime,
 * served over Streamable HTTP. Everything the `server-stateless` scenario calls is
 * registered through the runtime's router (`setRequestHandler`) and one subscription
 * handler fed by an in-process event source:
 * - `test_missing_capability` needs the client's `sampling` capability (-32021 without it);
 * - `test_streaming_elicitation` answers with an InputRequiredResult asking for elicitation;
 * - `test_logging_tool` does its work without logging unless the request set a log level;
 * - `test_trigger_tool_change` / `test_trigger_prompt_change` really change the tool or
 *   prompt list and announce it to every listen stream that asked.
 */
import {
  createServer,
  InProcessEventSource,
  McpError,
  type RequestContext,
  type Server,
  type SubscriptionHandler,
  type Unsubscribe,
} from "../../../generated/v2607/runtime/index.js";
import { ERROR_CODES, META_KEYS } from "../../../generated/v2607/capabilities.js";
import type { CallToolResult, Prompt, Tool } from "../../../generated/v2607/types.js";

type Topics = { tools: Record<string, never>; prompts: Record<string, never> };

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }], resultType: "complete" });

const FIXED_TOOLS: Tool[] = [
  { name: "test_missing_capability", description: "Needs the client's sampling capability", inputSchema: { type: "object" } },
  { name: "test_streaming_elicitation", description: "Asks the client for input through elicitation", inputSchema: { type: "object" } },
  { name: "test_logging_tool", description: "Logs only when the request asked for a log level", inputSchema: { type: "object" } },
  { name: "test_trigger_tool_change", description: "Adds a tool and announces the change", inputSchema: { type: "object" } },
  { name: "test_trigger_prompt_change", description: "Adds a prompt and announces the change", inputSchema: { type: "object" } },
];

/** One listen handler: joins the event source for each list the client asked about. */
function listChangedHandler(events: InProcessEventSource<Topics>): SubscriptionHandler<Unsubscribe[]> {
  return {
    subscribe(filter, channel) {
      const joined: Unsubscribe[] = [];
      if (filter.toolsListChanged) joined.push(events.subscribe("tools", () => channel.post("notifications/tools/list_changed")));
      if (filter.promptsListChanged) joined.push(events.subscribe("prompts", () => channel.post("notifications/prompts/list_changed")));
      return { stream: joined };
    },
    handleMessage(method, channel, state) {
      channel.sendNotification({ method: method as string });
      return { stream: state };
    },
    handleClose(_channel, joined) {
      for (const leave of joined) leave();
    },
    subscriptionCapabilities: () => ({ toolsListChanged: true, promptsListChanged: true }),
  };
}

export interface ConformanceApp {
  readonly server: Server;
  readonly events: InProcessEventSource<Topics>;
  /** How many listen streams the handler currently holds joined to the event source. */
  joinedListeners(): number;
}

export function createConformanceServer(): ConformanceApp {
  const events = new InProcessEventSource<Topics>();
  const server = createServer({ name: "mcp-gen-conformance", version: "1.0.0" });
  const extraTools: Tool[] = [];
  const prompts: Prompt[] = [{ name: "greeting", description: "A fixed greeting" }];

  // List results are cacheable (SEP-2549): these lists change, so nobody may cache them.
  const uncached = { ttlMs: 0, cacheScope: "private" } as const;
  server.setRequestHandler("tools/list", () => ({ tools: [...FIXED_TOOLS, ...extraTools], ...uncached }));
  server.setRequestHandler("tools/call", async (params, context) => callTool(params.name, context));
  server.setRequestHandler("prompts/list", () => ({ prompts: [...prompts], ...uncached }));
  server.setRequestHandler("prompts/get", (params) => {
    if (!prompts.some((prompt) => prompt.name === params.name)) {
      throw new McpError(ERROR_CODES.InvalidParamsError, `Unknown prompt: ${params.name}`);
    }
    return { messages: [{ role: "user" as const, content: { type: "text" as const, text: `prompt ${params.name}` } }] };
  });
  server.addSubscriptionHandler(listChangedHandler(events));

  async function callTool(name: string, context: RequestContext): Promise<CallToolResult> {
    const capabilities = (context.meta[META_KEYS.clientCapabilities] ?? {}) as Record<string, unknown>;
    switch (name) {
      case "test_missing_capability":
        if (capabilities.sampling === undefined) {
          throw new McpError(ERROR_CODES.MissingRequiredClientCapabilityError, "this tool needs the client's sampling capability", {
            requiredCapabilities: { sampling: {} },
          });
        }
        return text("sampling is available");
      case "test_streaming_elicitation":
        if (capabilities.elicitation === undefined) {
          throw new McpError(ERROR_CODES.MissingRequiredClientCapabilityError, "this tool needs the client's elicitation capability", {
            requiredCapabilities: { elicitation: {} },
          });
        }
        return {
          resultType: "input_required",
          inputRequests: {
            confirm: {
              method: "elicitation/create",
              params: { mode: "form", message: "Continue?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } },
            },
          },
        } as unknown as CallToolResult;
      case "test_logging_tool":
        return text(context.meta[META_KEYS.logLevel] === undefined ? "done (no log level requested)" : "done");
      case "test_trigger_tool_change":
        extraTools.push({ name: `dynamic_tool_${extraTools.length + 1}`, description: "Added at run time", inputSchema: { type: "object" } });
        await events.publish("tools", {});
        return text("tool list changed");
      case "test_trigger_prompt_change":
        prompts.push({ name: `dynamic_prompt_${prompts.length}`, description: "Added at run time" });
        await events.publish("prompts", {});
        return text("prompt list changed");
      default:
        throw new McpError(ERROR_CODES.InvalidParamsError, `Unknown tool: ${name}`);
    }
  }

  return { server, events, joinedListeners: () => events.listenerCount() };
}

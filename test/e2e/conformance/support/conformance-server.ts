/**
 * The server the official conformance suite runs against, built with the runtime's public
 * API only: createServer with an Ajv 2020 validator, addTool / addPrompt / addResource /
 * addResourceTemplate (with completion), input rounds, and one subscription handler fed
 * by an in-process event source. The `server-stateless` diagnostics:
 * - `test_missing_capability` needs the client's `sampling` capability (-32021 without it);
 * - `test_streaming_elicitation` answers with an InputRequiredResult asking for elicitation;
 * - `test_logging_tool` logs at debug, info and error; the runtime delivers only what the
 *   request's log level lets through, and nothing when it set none (`test_tool_with_logging`
 *   is the 2025-11-25 catalog's: three info messages); `logging` is advertised because the
 *   server has handlers, not declared by hand;
 * - `test_tool_with_progress` reports 0, 50 and 100 of 100 when the request carried a
 *   progressToken (the runtime refuses progress otherwise);
 * - `test_reconnection` (2025-11-25 SSE polling) closes its response stream before it
 *   answers (`closeSseStream`); the client resumes the stream with `Last-Event-ID`;
 * - `test_trigger_tool_change` / `test_trigger_prompt_change` really change the tool or
 *   prompt list and announce it to every listen stream that asked.
 * The content the `--requirements 2026-07-28` scenarios read lives in `everything.ts`,
 * `input-required.ts` and `tasks.ts` (the tasks extension); the 2025-11-25 tools that ask
 * the client, in `client-requests.ts`.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import {
  ajvSchemaValidator,
  createServer,
  InProcessEventSource,
  inputRequest,
  McpError,
  type Server, type ToolRunner,
  type SubscriptionHandler,
  type Unsubscribe,
} from "../../../../packages/runtime/src/index.js";
import { ERROR_CODES, META_KEYS } from "../../../../generated/index.js";
import { addEverything, text } from "./everything.js";
import { addClientRequestTools } from "./client-requests.js";
import { addInputRequired } from "./input-required.js";
import { addTasks } from "./tasks.js";

type Topics = { tools: Record<string, never>; prompts: Record<string, never> };

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

function addDiagnostics(server: Server, events: InProcessEventSource<Topics>): void {
  const tool = (name: string, description: string, run: ToolRunner) =>
    server.addTool({ name, description, inputSchema: { type: "object" } }, run);
  const capabilitiesOf = (meta: Readonly<Record<string, unknown>>) => (meta[META_KEYS.clientCapabilities] ?? {}) as Record<string, unknown>;
  const missing = (capability: string) =>
    new McpError(ERROR_CODES.MissingRequiredClientCapabilityError, `this tool needs the client's ${capability} capability`, {
      requiredCapabilities: { [capability]: {} },
    });
  tool("test_missing_capability", "Needs the client's sampling capability", (_params, context) => {
    if (capabilitiesOf(context.meta).sampling === undefined) throw missing("sampling");
    return text("sampling is available");
  });
  tool("test_streaming_elicitation", "Asks the client for input through elicitation", (_params, context, input) => {
    if (capabilitiesOf(context.meta).elicitation === undefined) throw missing("elicitation");
    return input.ask({
      confirm: inputRequest.elicit({ mode: "form", message: "Continue?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } }),
    });
  });
  tool("test_logging_tool", "Logs at debug, info and error; the request's log level decides what is sent", (_params, context) => {
    const sent = (["debug", "info", "error"] as const).filter(
      (level) => context.sendLog({ level, logger: "test_logging_tool", data: `a ${level} message` }).ok,
    );
    return text(sent.length === 0 ? "done (no log message sent)" : `done (sent ${sent.join(", ")})`);
  });
  tool("test_tool_with_logging", "Logs three info messages about 50 ms apart (the 2025-11-25 catalog's logging tool)", async (_params, context) => {
    for (const [index, data] of ["Tool execution started", "Tool processing data", "Tool execution completed"].entries()) {
      if (index > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      context.sendLog({ level: "info", logger: "test_tool_with_logging", data });
    }
    return text("logged three messages");
  });
  tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100 when asked for progress", async (_params, context) => {
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      context.sendProgress({ progress, total: 100 });
    }
    return text("progress reported");
  });
  tool("test_reconnection", "Closes its SSE stream before answering; a 2025-11-25 client resumes it with Last-Event-ID", async (_params, context) => {
    const closed = context.closeSseStream();
    await new Promise((resolve) => setTimeout(resolve, 100)); // the answer comes while no connection carries the stream
    return text(closed ? "answered after the stream was closed" : "answered (no resumable stream to close)");
  });
  let added = 0;
  tool("test_trigger_tool_change", "Adds a tool and announces the change", async () => {
    const name = `dynamic_tool_${++added}`;
    tool(name, "Added at run time", () => text(name));
    await events.publish("tools", {});
    return text("tool list changed");
  });
  tool("test_trigger_prompt_change", "Adds a prompt and announces the change", async () => {
    const name = `dynamic_prompt_${++added}`;
    server.addPrompt({ name, description: "Added at run time" }, () => ({ messages: [{ role: "user", content: { type: "text", text: name } }] }));
    await events.publish("prompts", {});
    return text("prompt list changed");
  });
}

export interface ConformanceApp {
  readonly server: Server;
  readonly events: InProcessEventSource<Topics>;
}

export function createConformanceServer(): ConformanceApp {
  const events = new InProcessEventSource<Topics>();
  const server = createServer({
    name: "mcp-gen-conformance",
    version: "1.0.0",
    validator: ajvSchemaValidator(new Ajv2020({ strict: false })),
  });
  addDiagnostics(server, events);
  addEverything(server);
  addInputRequired(server);
  addClientRequestTools(server);
  addTasks(server);
  server.addSubscriptionHandler(listChangedHandler(events));
  return { server, events };
}

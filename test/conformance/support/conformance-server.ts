/**
 * The server the official conformance suite runs against: built on the generated runtime,
 * served over Streamable HTTP. Everything is registered through the runtime's router
 * (`setRequestHandler`) from a catalog, plus one subscription handler fed by an in-process
 * event source. The `server-stateless` diagnostics:
 * - `test_missing_capability` needs the client's `sampling` capability (-32021 without it);
 * - `test_streaming_elicitation` answers with an InputRequiredResult asking for elicitation;
 * - `test_logging_tool` logs at debug, info and error; the runtime delivers only what the
 *   request's log level lets through, and nothing when it set none;
 * - `test_tool_with_progress` reports 0, 50 and 100 of 100 when the request carried a
 *   progressToken (the runtime refuses progress otherwise);
 * - `test_trigger_tool_change` / `test_trigger_prompt_change` really change the tool or
 *   prompt list and announce it to every listen stream that asked.
 * The content the `--requirements 2026-07-28` scenarios read lives in `everything.ts` and
 * `input-required.ts`.
 */
import { createServer, InProcessEventSource, McpError, type Server, type SubscriptionHandler, type Unsubscribe } from "../../../templates/runtime/index.js";
import { ERROR_CODES, META_KEYS } from "../../../generated/v2607/capabilities.js";
import { Catalog, text } from "./catalog.js";
import { addEverything } from "./everything.js";
import { addInputRequired } from "./input-required.js";

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

function addDiagnostics(catalog: Catalog, events: InProcessEventSource<Topics>): void {
  const capabilitiesOf = (meta: Readonly<Record<string, unknown>>) => (meta[META_KEYS.clientCapabilities] ?? {}) as Record<string, unknown>;
  const missing = (capability: string) =>
    new McpError(ERROR_CODES.MissingRequiredClientCapabilityError, `this tool needs the client's ${capability} capability`, {
      requiredCapabilities: { [capability]: {} },
    });
  catalog.tool("test_missing_capability", "Needs the client's sampling capability", (_params, context) => {
    if (capabilitiesOf(context.meta).sampling === undefined) throw missing("sampling");
    return text("sampling is available");
  });
  catalog.tool("test_streaming_elicitation", "Asks the client for input through elicitation", (_params, context) => {
    if (capabilitiesOf(context.meta).elicitation === undefined) throw missing("elicitation");
    const requestedSchema = { type: "object", properties: { ok: { type: "boolean" } } };
    return {
      resultType: "input_required",
      inputRequests: { confirm: { method: "elicitation/create", params: { mode: "form", message: "Continue?", requestedSchema } } },
    };
  });
  catalog.tool("test_logging_tool", "Logs at debug, info and error; the request's log level decides what is sent", (_params, context) => {
    const sent = (["debug", "info", "error"] as const).filter(
      (level) => context.sendLog({ level, logger: "test_logging_tool", data: `a ${level} message` }).ok,
    );
    return text(sent.length === 0 ? "done (no log message sent)" : `done (sent ${sent.join(", ")})`);
  });
  catalog.tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100 when asked for progress", async (_params, context) => {
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      context.sendProgress({ progress, total: 100 });
    }
    return text("progress reported");
  });
  let added = 0;
  catalog.tool("test_trigger_tool_change", "Adds a tool and announces the change", async () => {
    const name = `dynamic_tool_${++added}`;
    catalog.tool(name, "Added at run time", () => text(name));
    await events.publish("tools", {});
    return text("tool list changed");
  });
  catalog.tool("test_trigger_prompt_change", "Adds a prompt and announces the change", async () => {
    const name = `dynamic_prompt_${++added}`;
    catalog.prompt({ name, description: "Added at run time" }, () => ({ messages: [{ role: "user", content: { type: "text", text: name } }] }));
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
  const server = createServer({ name: "mcp-gen-conformance", version: "1.0.0", capabilities: { logging: {} } });
  const catalog = new Catalog();
  addDiagnostics(catalog, events);
  addEverything(catalog, server);
  addInputRequired(catalog);

  // List results are cacheable (SEP-2549): these lists change, so nobody may cache them.
  const uncached = { ttlMs: 0, cacheScope: "private" } as const;
  server.setRequestHandler("tools/list", () => ({ tools: [...catalog.tools.values()].map((entry) => entry.tool), ...uncached }));
  server.setRequestHandler("tools/call", (params, context) => {
    const entry = catalog.tools.get(params.name);
    if (entry === undefined) throw new McpError(ERROR_CODES.InvalidParamsError, `Unknown tool: ${params.name}`);
    return runTool(() => entry.run(params, context));
  });
  server.setRequestHandler("prompts/list", () => ({ prompts: [...catalog.prompts.values()].map((entry) => entry.prompt), ...uncached }));
  server.setRequestHandler("prompts/get", (params, context) => {
    const entry = catalog.prompts.get(params.name);
    if (entry === undefined) throw new McpError(ERROR_CODES.InvalidParamsError, `Unknown prompt: ${params.name}`);
    return entry.get(params, context) as any;
  });
  server.addSubscriptionHandler(listChangedHandler(events));
  return { server, events };
}

/** A tool's own failure is its result (isError); protocol errors (McpError) stay errors. */
async function runTool(run: () => unknown): Promise<any> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof McpError) throw error;
    return { content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }], isError: true };
  }
}

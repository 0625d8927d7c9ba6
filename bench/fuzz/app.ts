/**
 * The server the fuzz pass attacks: tools that answer, wait, throw, run as tasks and report the
 * principal, a subscription handler on an in-process event source, and a prompt and a
 * resource handler, so that every method family has something behind it.
 */
import { createServer, InProcessEventSource, inputRequest, McpError, runAsTask, type Server, type Unsubscribe } from "../../packages/runtime/src/index.js";

export function fuzzApp(): Server {
  const events = new InProcessEventSource();
  const server = createServer({ name: "fuzz", version: "1.0.0" });
  server.addTool({ name: "echo", inputSchema: { type: "object" } }, (args, request) => ({
    content: [{ type: "text", text: JSON.stringify({ args, principal: request.meta.principal ?? null }) }],
  }));
  server.addTool({ name: "slow", inputSchema: { type: "object" } }, async (args) => {
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, Number(args.ms) || 0)));
    return { content: [{ type: "text", text: "done" }] };
  });
  server.addTool({ name: "fail", inputSchema: { type: "object" } }, () => {
    throw new McpError(-32002, "failed on purpose");
  });
  // Tasks: one that finishes by itself, one that waits for input through tasks/update.
  server.addTool({ name: "job", inputSchema: { type: "object" } }, (args) =>
    runAsTask(async () => {
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, Number(args.ms) || 0)));
      return { content: [{ type: "text", text: "job done" }] };
    }),
  );
  server.addTool({ name: "asking-job", inputSchema: { type: "object" } }, () =>
    runAsTask(async (task) => {
      const { go } = await task.ask({ go: inputRequest.elicit({ mode: "form", message: "Go?", requestedSchema: { type: "object", properties: {} } }) });
      return { content: [{ type: "text", text: JSON.stringify(go ?? null) }] };
    }),
  );
  server.setRequestHandler("prompts/list", () => ({ prompts: [], ttlMs: 0, cacheScope: "private" as const }));
  server.setRequestHandler("resources/read", (params) => ({
    contents: [{ uri: String(params.uri), text: "x" }],
    ttlMs: 0,
    cacheScope: "private" as const,
  }));
  server.addSubscriptionHandler<Unsubscribe, unknown>({
    subscriptionCapabilities: () => ({ toolsListChanged: true, resourcesUpdated: true }),
    subscribe: (_filter, channel) => ({ stream: events.subscribe("tools", () => channel.post("tools")) }),
    handleMessage: (_message, channel, leave) => {
      channel.sendNotification({ method: "notifications/tools/list_changed" });
      return { stream: leave };
    },
    handleClose: (_channel, leave) => leave(),
  });
  return server;
}

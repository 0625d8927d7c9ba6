/**
 * The server the attack bench runs in a child process with a small heap: tools that make
 * tasks (finishing with a large result, or waiting for input), one that runs for a minute,
 * a subscription handler that watches resources, and the legacy era on, served over HTTP on
 * 127.0.0.1. Each attacking
 * client names itself in `x-client`, the principal its shares count against, so one driver
 * can play many clients. Prints `listening <url>` on stdout.
 */
import { createServer, InProcessEventSource, inputRequest, runAsTask, type Unsubscribe } from "../../packages/runtime/src/index.js";
import { serveHttp } from "../../packages/runtime/src/transports/http-server.js";

const events = new InProcessEventSource();
const server = createServer({ name: "attacked", version: "1.0.0" });
server.addTool({ name: "ping", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "pong" }] }));
// Runs until its request is cancelled or its session ends, a minute at most: what an HTTP+SSE flood starts.
server.addTool(
  { name: "hang", inputSchema: { type: "object" } },
  (_arguments, context) =>
    new Promise((resolve) => {
      const done = () => (clearTimeout(timer), resolve({ content: [] }));
      const timer = setTimeout(done, 60_000);
      context.signal.addEventListener("abort", done, { once: true });
    }),
);
server.addTool({ name: "big-result", inputSchema: { type: "object" } }, () =>
  runAsTask(async () => ({ content: [{ type: "text", text: "r".repeat(1024 * 1024 - 256) }] })),
);
server.addTool({ name: "waiting", inputSchema: { type: "object" } }, () =>
  runAsTask(async (task) => {
    const { go } = await task.ask({ go: inputRequest.elicit({ mode: "form", message: "Go?", requestedSchema: { type: "object", properties: {} } }) });
    return { content: [{ type: "text", text: JSON.stringify(go ?? null).slice(0, 100) }] };
  }),
);
server.addSubscriptionHandler<Unsubscribe, unknown>({
  subscriptionCapabilities: () => ({ toolsListChanged: true, resourcesUpdated: true }),
  subscribe: (_filter, channel) => ({ stream: events.subscribe("resources", () => channel.post("changed")) }),
  handleMessage: (_message, channel, leave) => {
    channel.sendNotification({ method: "notifications/resources/updated", params: { uri: "app://x" } });
    return { stream: leave };
  },
  handleClose: (_channel, leave) => leave(),
});
const handle = await serveHttp(server, { authenticate: (req) => req.headers["x-client"] ?? undefined });
console.log(`listening ${handle.url}`);

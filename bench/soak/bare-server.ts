/**
 * The reference for the soak: a bare `node:http` server that does the least a listen
 * server can do. It keeps each listen response open, acks it, and on `fire` writes each
 * matching stream one frame built from a pre-serialised body and the stream's id. No
 * validation, no mailbox, no handler: the floor the runtime is compared against.
 * Prints `listening <url>` on stdout.
 */
import { createServer, type ServerResponse } from "node:http";

type Filter = { toolsListChanged?: boolean; promptsListChanged?: boolean; resourceSubscriptions?: string[] };
const ID_KEY = "io.modelcontextprotocol/subscriptionId";
const streams = new Set<{ id: string; filter: Filter; res: ServerResponse }>();

function frame(method: string, params: Record<string, unknown>, id: string): string {
  return `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method, params: { ...params, _meta: { [ID_KEY]: id } } })}\n\n`;
}

/** Pre-serialised notification bodies, completed per stream by splicing in the id. */
function splice(method: string, params: Record<string, unknown>): (id: string) => string {
  const head = `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method, params: { ...params, _meta: {} } }).slice(0, -4)}`;
  return (id) => `${head}{"${ID_KEY}":${JSON.stringify(id)}}}}\n\n`;
}

function fire(resourceUris: string[]): void {
  const tools = splice("notifications/tools/list_changed", {});
  const prompts = splice("notifications/prompts/list_changed", {});
  const updates = new Map(resourceUris.map((uri) => [uri, splice("notifications/resources/updated", { uri })]));
  for (const { id, filter, res } of streams) {
    if (filter.toolsListChanged) res.write(tools(id));
    if (filter.promptsListChanged) res.write(prompts(id));
    for (const uri of filter.resourceSubscriptions ?? []) {
      const update = updates.get(uri);
      if (update !== undefined) res.write(update(id));
    }
  }
}

const server = createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (chunk: string) => (body += chunk));
  req.on("end", () => {
    const message = JSON.parse(body);
    if (message.method === "subscriptions/listen") {
      const filter: Filter = message.params.notifications;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" });
      res.write(frame("notifications/subscriptions/acknowledged", { notifications: filter }, message.id));
      const stream = { id: message.id, filter, res };
      streams.add(stream);
      res.on("close", () => streams.delete(stream));
      return;
    }
    if (message.method === "tools/call" && message.params.name === "fire") {
      fire(message.params.arguments.resourceUris);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { content: [], resultType: "complete" } }));
      return;
    }
    res.writeHead(404).end();
  });
});

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  if (address !== null && typeof address === "object") process.stdout.write(`listening http://127.0.0.1:${address.port}/mcp\n`);
});
process.on("SIGTERM", () => process.exit(0));

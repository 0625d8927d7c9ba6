/**
 * One legacy (2025-11-25) Streamable HTTP server per process for the side-by-side bench
 * (`run.ts` forks this file once per kind). Every kind opens sessions on `initialize`
 * (`Mcp-Session-Id`), serves the `forecast` tool of bench/tools-call/tool.ts, carries a
 * session's notifications on its GET stream, and on a `fire` command announces
 * `notifications/tools/list_changed` to every session:
 * - `runtime`: createServer (Ajv 2020 validator, one subscription handler on an in-process
 *   event source) behind serveHttp, legacy sessions on by default;
 * - `redis`: the same with its sessions in a Redis session store (REDIS_URL; run.ts --redis);
 * - `middleware`: `runtime` with one pass-through middleware on every method (run.ts --middleware);
 * - `sdk`: the official SDK v2, one McpServer + WebStandardStreamableHTTPServerTransport
 *   per session (the SDK's stateful 2025 transport) with the same JSON Schemas through its
 *   fromJsonSchema, behind the node:http adapter the other benches use;
 * - `bare`: node:http keeping a map of sessions and writing one pre-serialised frame to
 *   each GET stream; no validation (the floor).
 * Reports its port over IPC, and on `{ cpu }` the CPU time it has used.
 */
import { randomUUID } from "node:crypto";
import { createServer as createNodeServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ajvSchemaValidator, createServer, InProcessEventSource, type LegacySessionStore } from "../../packages/runtime/src/index.js";
import { connectRedisSessionStore } from "../../templates/event-sources/redis/redis-session-store.js";
import { serveHttp } from "../../packages/runtime/src/transports/http-server.js";
import { toolsListChangedHandler, type ToolEvents } from "../http/list-changed.js";
import { serveFetch } from "../http/serve-fetch.js";
import { answer, INPUT_SCHEMA, OUTPUT_SCHEMA, TOOL_NAME } from "../tools-call/tool.js";

export type Kind = "runtime" | "redis" | "middleware" | "sdk" | "bare";
type Started = { port: number; fire: () => void };
const MAX_SESSIONS = 10_000;

/** `store`: the sessions in Redis (`redis`, REDIS_URL), else in this process (`runtime`); `passThrough`: one middleware that only calls next. */
async function startRuntime(store?: LegacySessionStore, passThrough = false): Promise<Started> {
  const events = new InProcessEventSource<ToolEvents>();
  const server = createServer({
    name: "bench-runtime",
    version: "1.0.0",
    validator: ajvSchemaValidator(new Ajv2020({ strict: false })),
    // Every session comes from one address: the per-client shares are lifted with the totals.
    legacy: { maxSessions: MAX_SESSIONS, maxSessionsPerClient: MAX_SESSIONS, ...(store === undefined ? {} : { store }) },
    limits: { maxStreams: MAX_SESSIONS, maxStreamsPerClient: MAX_SESSIONS },
  });
  server.addTool({ name: TOOL_NAME, inputSchema: INPUT_SCHEMA, outputSchema: OUTPUT_SCHEMA }, (args) => answer(args));
  server.addSubscriptionHandler(toolsListChangedHandler(events));
  if (passThrough) server.use((_ctx, next) => next());
  // The slow-consumer policy is lifted (the SDK and bare buffer without bound), as in bench/http.
  const handle = await serveHttp(server, { port: 0, keepAliveMs: 0, maxTotalBufferedBytes: Number.MAX_SAFE_INTEGER, maxStalledMs: 0 });
  return { port: handle.port, fire: () => void events.publish("tools", {}) };
}

async function startSdk(): Promise<Started> {
  const { fromJsonSchema, McpServer, WebStandardStreamableHTTPServerTransport } = await import("@modelcontextprotocol/server");
  const inputSchema = fromJsonSchema<Record<string, unknown>>(INPUT_SCHEMA);
  const outputSchema = fromJsonSchema(OUTPUT_SCHEMA);
  const sessions = new Map<string, { server: InstanceType<typeof McpServer>; transport: InstanceType<typeof WebStandardStreamableHTTPServerTransport> }>();
  const handle = async (request: Request): Promise<Response> => {
    const id = request.headers.get("mcp-session-id");
    const existing = id === null ? undefined : sessions.get(id);
    if (existing !== undefined) return existing.transport.handleRequest(request);
    const server = new McpServer({ name: "bench-sdk", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
    server.registerTool(TOOL_NAME, { inputSchema, outputSchema }, async (args) => answer(args));
    const transport: InstanceType<typeof WebStandardStreamableHTTPServerTransport> = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, { server, transport }),
    });
    await server.connect(transport);
    return transport.handleRequest(request);
  };
  const http = createNodeServer((req, res) => void serveFetch(handle, req, res));
  const fire = () => {
    for (const { server } of sessions.values()) server.sendToolListChanged();
  };
  return { port: await listen(http), fire };
}

async function startBare(): Promise<Started> {
  const streams = new Map<string, ServerResponse | undefined>();
  const frame = `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })}\n\n`;
  const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers }).end(text);
  };
  const http = createNodeServer((req: IncomingMessage, res: ServerResponse) => {
    const session = req.headers["mcp-session-id"] as string | undefined;
    if (req.method === "GET") {
      if (session === undefined || !streams.has(session)) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.flushHeaders();
      streams.set(session, res);
      res.once("close", () => streams.get(session) === res && streams.set(session, undefined));
      return;
    }
    let body = "";
    req.setEncoding("utf8").on("data", (chunk) => (body += chunk));
    req.once("end", () => {
      const message = JSON.parse(body);
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === "initialize") {
        const id = randomUUID();
        streams.set(id, undefined);
        const result = {
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: "bare", version: "1" },
        };
        return json(res, { jsonrpc: "2.0", id: message.id, result }, { "mcp-session-id": id });
      }
      if (session === undefined || !streams.has(session)) return void res.writeHead(404).end();
      json(res, { jsonrpc: "2.0", id: message.id, result: answer(message.params.arguments) });
    });
  });
  const fire = () => {
    for (const res of streams.values()) res?.write(frame);
  };
  return { port: await listen(http), fire };
}

function listen(server: ReturnType<typeof createNodeServer>): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

async function startRedis(): Promise<Started> {
  const store: LegacySessionStore = await connectRedisSessionStore({ url: process.env.REDIS_URL! });
  return startRuntime(store);
}

const starters: Record<Kind, () => Promise<Started>> = {
  runtime: () => startRuntime(),
  redis: startRedis,
  middleware: () => startRuntime(undefined, true),
  sdk: startSdk,
  bare: startBare,
};
const { port, fire } = await starters[process.argv[2] as Kind]();
process.on("message", (command: { fire?: boolean; cpu?: boolean }) => {
  if (command.fire) {
    fire();
    process.send!({ fired: true });
  }
  if (command.cpu) {
    const { user, system } = process.cpuUsage();
    process.send!({ cpuMicros: user + system });
  }
});
process.send!({ port });
process.on("disconnect", () => process.exit(0));

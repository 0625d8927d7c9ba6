/**
 * One replica for the replica-cost bench (`run.ts` forks three): the runtime behind serveHttp
 * with its legacy sessions in the Redis session store and its events on the Redis event source
 * (both on REDIS_URL), serving the `forecast` tool of bench/tools-call/tool.ts and one
 * subscription handler that turns each `tools` event into `notifications/tools/list_changed`;
 * its tasks in the Redis task store, and `forecast_task`, the same answer as a task.
 * The handler posts the delivered payload itself; the replica that opened a session writes
 * its events.
 *
 * Reports its port over IPC; answers `{ settled }` (no session-store call in flight, none
 * begun lately), `{ heap }` with its heap after two full collections
 * (run under --expose-gc) and `{ fire }` by publishing one `tools` event.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import {
  ajvSchemaValidator,
  createServer,
  runAsTask,
  serveHttp,
  type LegacySessionStore,
  type StoredTask,
  type SubscriptionHandler,
  type Unsubscribe,
} from "../../packages/runtime/src/index.js";
import { connectRedisEventSource } from "../../templates/event-sources/redis/redis-event-source.js";
import { connectRedisSessionStore } from "../../templates/event-sources/redis/redis-session-store.js";
import { connectRedisTaskStore } from "../../templates/event-sources/redis/redis-task-store.js";
import { answer, INPUT_SCHEMA, OUTPUT_SCHEMA, TOOL_NAME } from "../tools-call/tool.js";

type ToolEvents = { tools: Record<string, never> };
/** Above what the bench opens: the runtime's own bounds are not what is measured. */
const MAX_SESSIONS = 50_000;
/** A replica is settled once no store call is in flight and none began for this long. */
const SETTLED_MS = 300;

const url = process.env.REDIS_URL!;
const events = await connectRedisEventSource<ToolEvents>({ url });
/** Store calls not yet answered, and when the last one began: the bench waits until a change's writes are done on every replica. */
let inFlight = 0;
let lastCallAt = 0;
const store = counted(await connectRedisSessionStore({ url }));
const tasks = await connectRedisTaskStore<StoredTask>({ url });

const toolsChanged: SubscriptionHandler<Unsubscribe> = {
  subscriptionCapabilities: () => ({ toolsListChanged: true }),
  subscribe: (_filter, channel) => ({ stream: events.subscribe("tools", (payload) => channel.post(payload)) }),
  handleMessage(_message, channel, leave) {
    channel.sendNotification({ method: "notifications/tools/list_changed" });
    return { stream: leave };
  },
  handleClose: (_channel, leave) => leave(),
};

const server = createServer({
  name: "bench-replica",
  version: "1.0.0",
  validator: ajvSchemaValidator(new Ajv2020({ strict: false })),
  // Every session comes from one address (the bench): the per-client shares are lifted with the totals.
  legacy: { store, maxSessions: MAX_SESSIONS, maxSessionsPerClient: MAX_SESSIONS },
  limits: { maxStreams: MAX_SESSIONS, maxStreamsPerClient: MAX_SESSIONS },
  tasks: { store: tasks },
});
server.addTool({ name: TOOL_NAME, inputSchema: INPUT_SCHEMA, outputSchema: OUTPUT_SCHEMA }, (args) => answer(args));
// The same answer as a task (a modern client's `tools/call`), for Redis's memory per finished task.
server.addTool({ name: `${TOOL_NAME}_task`, inputSchema: INPUT_SCHEMA }, (args) => runAsTask(async () => answer(args)));
server.addSubscriptionHandler(toolsChanged);
const http = await serveHttp(server, { port: 0, keepAliveMs: 0, maxTotalBufferedBytes: Number.MAX_SAFE_INTEGER, maxStalledMs: 0 });

/** The store, each of its calls that returns a promise counted while it is in flight. */
function counted(inner: LegacySessionStore): LegacySessionStore {
  return new Proxy(inner, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result = (value as (...args: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        inFlight++;
        lastCallAt = performance.now();
        return result.finally(() => inFlight--);
      };
    },
  });
}

function settledHeap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run the replica with --expose-gc");
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

process.on("message", (command: { heap?: boolean; fire?: boolean; settled?: boolean }) => {
  if (command.settled) process.send!({ settled: inFlight === 0 && performance.now() - lastCallAt > SETTLED_MS });
  if (command.heap) process.send!({ heapUsed: settledHeap() });
  if (command.fire) {
    events.publish("tools", {}).then(
      () => process.send!({ fired: true }),
      (error: unknown) => process.send!({ fired: false, error: String(error) }),
    );
  }
});
process.send!({ port: http.port });
process.on("disconnect", () => process.exit(0));

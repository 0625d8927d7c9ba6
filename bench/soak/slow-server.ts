/**
 * The server of the slow-consumer soak (slow-consumers.ts): the runtime over HTTP with its
 * default limits (buffered-output budget, stall time, per-client share), one subscription
 * handler relaying numbered ticks (resource `soak://ticks`) and, to streams that ask for
 * it, a large update of `soak://bulk` once a second; two tools: `start` publishes both on
 * timers, `stats` reports memory, the budget, and how streams ended (evictions by rule). Each stream's client
 * names itself in `x-soak-client`, which `authenticate` turns into the principal, so the
 * per-client share applies per stream as it would per user. Prints `listening <url>`.
 */
import { createServer, InProcessEventSource, serveHttp, type OutgoingNotification } from "../../packages/runtime/src/index.js";
import { SseBudget } from "../../packages/runtime/src/transports/sse-budget.js";

export const TICK_URI = "soak://ticks";
export const BULK_URI = "soak://bulk";
type Topics = { tick: { notification: OutgoingNotification }; bulk: { notification: OutgoingNotification } };

const events = new InProcessEventSource<Topics>();
const budget = new SseBudget();
const ended = new Map<string, number>();
/** Evicted streams by the rule that ended them (stream-cap, server-budget, stalled), and when the last one went. */
const evictedBy = new Map<string, number>();
let lastEvictionAt = 0;
let open = 0;
let published = 0;
let bulkPublished = 0;
const timers: NodeJS.Timeout[] = [];

const server = createServer({
  name: "slow-soak",
  version: "1.0.0",
  onEvent(event) {
    if (event.type === "stream-opened") open++;
    if (event.type === "stream-closed" || event.type === "stream-stopped") {
      open--;
      const key = event.type === "stream-closed" ? event.cause : "stopped";
      ended.set(key, (ended.get(key) ?? 0) + 1);
    }
  },
});

server.addSubscriptionHandler<() => void>({
  subscriptionCapabilities: () => ({ resourcesUpdated: true }),
  subscribe(filter, channel) {
    const leave = [events.subscribe("tick", (tick) => channel.post(tick))];
    if (filter.resourceSubscriptions?.includes(BULK_URI)) leave.push(events.subscribe("bulk", (bulk) => channel.post(bulk)));
    return { stream: () => leave.forEach((unsubscribe) => unsubscribe()) };
  },
  handleMessage(event, channel, leave) {
    // The same notification object for every stream: serialised once, the id spliced in.
    channel.sendNotification((event as Topics["tick"]).notification);
    return { stream: leave };
  },
  handleClose: (_channel, leave) => leave(),
});

const text = (value: unknown) => ({ content: [{ type: "text" as const, text: JSON.stringify(value) }] });

server.addTool(
  {
    name: "start",
    description: "Publishes a numbered tick ratePerSec times a second and a bulk update of bulkBytes once a second, for durationMs",
    inputSchema: { type: "object" },
  },
  (args) => {
    const options = (args ?? {}) as { ratePerSec?: number; padBytes?: number; bulkBytes?: number; durationMs?: number };
    const { ratePerSec = 1, padBytes = 100, bulkBytes = 64 * 1024, durationMs = 60_000 } = options;
    const pad = "x".repeat(padBytes);
    const stopAt = Date.now() + durationMs;
    const every = (ms: number, publish: () => void) => {
      const timer = setInterval(() => (Date.now() >= stopAt ? clearInterval(timer) : publish()), ms);
      timers.push(timer);
    };
    timers.splice(0).forEach(clearInterval);
    every(1000 / ratePerSec, () => {
      const seq = ++published;
      void events.publish("tick", { notification: { method: "notifications/resources/updated", params: { seq, uri: TICK_URI, pad } } });
    });
    every(1000, () => {
      const bulk = `${++bulkPublished}`.padEnd(bulkBytes, "y");
      void events.publish("bulk", { notification: { method: "notifications/resources/updated", params: { uri: BULK_URI, bulk } } });
    });
    return text({ started: true });
  },
);

server.addTool({ name: "stats", description: "Memory, buffered-output budget and stream endings", inputSchema: { type: "object" } }, () => {
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return text({
    rss,
    heapUsed,
    external: external + arrayBuffers,
    budgetUsed: budget.usedBytes,
    budgetPeak: budget.peakBytes,
    budgetMax: budget.maxBytes,
    budgetEvictions: budget.evictions,
    evictedBy: Object.fromEntries(evictedBy),
    lastEvictionAt,
    open,
    published,
    bulkPublished,
    ended: Object.fromEntries(ended),
  });
});

const http = await serveHttp(server, {
  port: Number(process.env.PORT ?? 0),
  budget,
  authenticate: (req) => req.headers["x-soak-client"],
  onStreamEnd(report) {
    if (report.eviction === undefined) return;
    evictedBy.set(report.eviction, (evictedBy.get(report.eviction) ?? 0) + 1);
    lastEvictionAt = Date.now();
  },
});
process.stdout.write(`listening ${http.url}\n`);
process.on("SIGTERM", () => process.exit(0));

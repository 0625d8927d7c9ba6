/**
 * The server of the slow-consumer soak (slow-consumers.ts): the runtime over HTTP with its
 * default limits (buffered-output budget, stall time, per-client share), one subscription
 * handler relaying numbered ticks to every stream, and two tools: `start` publishes ticks on
 * a timer, `stats` reports memory, the budget, and how streams ended. Each stream's client
 * names itself in `x-soak-client`, which `authenticate` turns into the principal, so the
 * per-client share applies per stream as it would per user. Prints `listening <url>`.
 */
import { createServer, InProcessEventSource, serveHttp, type OutgoingNotification, type Unsubscribe } from "../../templates/runtime/index.js";
import { SseBudget } from "../../templates/runtime/transports/sse-budget.js";

export const TICK_URI = "soak://ticks";
type Topics = { tick: { notification: OutgoingNotification } };

const events = new InProcessEventSource<Topics>();
const budget = new SseBudget();
const ended = new Map<string, number>();
let open = 0;
let published = 0;
let ticker: NodeJS.Timeout | undefined;

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

server.addSubscriptionHandler<Unsubscribe>({
  subscriptionCapabilities: () => ({ resourcesUpdated: true }),
  subscribe: (_filter, channel) => ({ stream: events.subscribe("tick", (tick) => channel.post(tick)) }),
  handleMessage(tick, channel, leave) {
    // The same notification object for every stream: serialised once, the id spliced in.
    channel.sendNotification((tick as Topics["tick"]).notification);
    return { stream: leave };
  },
  handleClose: (_channel, leave) => leave(),
});

const text = (value: unknown) => ({ content: [{ type: "text" as const, text: JSON.stringify(value) }] });

server.addTool(
  { name: "start", description: "Publishes a numbered tick to every stream, ratePerSec times a second, for durationMs", inputSchema: { type: "object" } },
  (args) => {
    const { ratePerSec = 10, padBytes = 1000, durationMs = 60_000 } = (args ?? {}) as { ratePerSec?: number; padBytes?: number; durationMs?: number };
    const pad = "x".repeat(padBytes);
    const stopAt = Date.now() + durationMs;
    clearInterval(ticker);
    ticker = setInterval(() => {
      if (Date.now() >= stopAt) return clearInterval(ticker);
      const seq = ++published;
      void events.publish("tick", { notification: { method: "notifications/resources/updated", params: { seq, uri: TICK_URI, pad } } });
    }, 1000 / ratePerSec);
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
    open,
    published,
    ended: Object.fromEntries(ended),
  });
});

const http = await serveHttp(server, {
  port: Number(process.env.PORT ?? 0),
  budget,
  authenticate: (req) => req.headers["x-soak-client"],
});
process.stdout.write(`listening ${http.url}\n`);
process.on("SIGTERM", () => process.exit(0));

/**
 * One server process for the scale tests and the soak: the fan-out app over HTTP, with the event source named by EVENT_SOURCE (`memory`, default, or `redis`,
 * which reads REDIS_URL). Prints `listening <url>` on stdout once serving HTTP. On
 * SIGTERM/SIGINT it ends every stream with its `complete` result and exits 0.
 *
 *   EVENT_SOURCE=redis REDIS_URL=redis://127.0.0.1:6379 PORT=0 [MAX_STREAMS_PER_CLIENT=n] node --import tsx fanout-node.ts
 */
import { InProcessEventSource, serveHttp, type EventSource } from "../../../../packages/runtime/src/index.js";
import { connectRedisEventSource } from "../../../../templates/event-sources/redis/redis-event-source.js";
import { createFanoutServer, type FanoutTopics } from "../../../support/fanout-app.js";

const name = process.env.NODE_NAME ?? `fanout-${process.pid}`;

async function openEventSource(): Promise<EventSource<FanoutTopics>> {
  if (process.env.EVENT_SOURCE === "redis") return connectRedisEventSource<FanoutTopics>();
  return new InProcessEventSource<FanoutTopics>();
}

async function main(): Promise<void> {
  let events: EventSource<FanoutTopics>;
  try {
    events = await openEventSource();
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  // The soak opens thousands of streams from one address: it raises the per-client share.
  const maxStreamsPerClient = process.env.MAX_STREAMS_PER_CLIENT === undefined ? undefined : Number(process.env.MAX_STREAMS_PER_CLIENT);
  const server = createFanoutServer(events, name, { maxStreamsPerClient });
  const http = await serveHttp(server, { port: Number(process.env.PORT ?? 0) });
  process.stdout.write(`listening ${http.url}\n`);
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await server.close(); // every open stream gets its complete result
    await http.close();
    await events.close?.();
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

await main();

/**
 * One server process of the cross-process tasks test: the runtime with its tasks in the Redis
 * store (REDIS_URL), serving Streamable HTTP on 127.0.0.1. `wait` runs as a task until it is
 * cancelled (then it records "aborted" in its result, which a cancelled task never shows);
 * `done` completes its task at once;
 * `ask` asks a question during its task and answers with the reply.
 */
import { createServer, inputRequest, runAsTask, serveHttp, type StoredTask, type TaskStore } from "../../../../../packages/runtime/src/index.js";
import { connectRedisTaskStore } from "../../../../../templates/event-sources/redis/redis-task-store.js";

export async function startTaskApp(url: string, name: string) {
  const store: TaskStore = await connectRedisTaskStore<StoredTask>({ url, prefix: "test:tasks:" });
  const server = createServer({ name, version: "1", tasks: { store } });
  server.addTool({ name: "wait", inputSchema: { type: "object" } }, () =>
    runAsTask(async (task) => {
      await new Promise<void>((resolve) => {
        const bound = setTimeout(resolve, 60_000);
        task.signal.addEventListener("abort", () => (clearTimeout(bound), resolve()), { once: true });
      });
      return { content: [{ type: "text", text: task.signal.aborted ? "aborted" : "waited" }] };
    }),
  );
  server.addTool({ name: "done", inputSchema: { type: "object" } }, () => runAsTask(async () => ({ content: [{ type: "text", text: "done" }] })));
  server.addTool({ name: "ask", inputSchema: { type: "object" } }, () =>
    runAsTask(async (task) => {
      const answers = await task.ask({
        name: inputRequest.elicit({ mode: "form", message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }),
      });
      const reply = answers.name as { content?: { name?: string } };
      return { content: [{ type: "text", text: `Hello, ${reply.content?.name}` }] };
    }),
  );
  const handle = await serveHttp(server, { host: "127.0.0.1", port: 0 });
  return { server, handle, url: handle.url };
}

// Run as a child process: serve until killed, print the URL.
if (process.argv[1]?.endsWith("task-app.ts")) {
  const app = await startTaskApp(process.env.REDIS_URL!, "process-a");
  process.stdout.write(`listening ${app.url}\n`);
}

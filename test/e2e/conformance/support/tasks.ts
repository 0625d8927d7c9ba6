/**
 * The tasks extension's fixtures (`tasks-*` scenarios), built on `runAsTask`: `greet` runs
 * inline; `slow_compute` sleeps `seconds` as a task (and stops when cancelled);
 * `failing_job` (task only) ends with a tool error; `protocol_error_job` with a JSON-RPC
 * error; `confirm_delete` and `multi_input` ask for input during the task; and
 * `test_tool_with_task` asks through an input round first, then becomes a task.
 */
import { inputRequest, McpError, runAsTask, type Server, type TaskContext } from "../../../../packages/runtime/src/index.js";
import { text } from "./everything.js";

const confirm = (message: string) =>
  inputRequest.elicit({ mode: "form", message, requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } } } });

/** Waits `ms`, or until the task is cancelled. */
function sleep(ms: number, task: TaskContext): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    task.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

export function addTasks(server: Server): void {
  const object = { type: "object" as const };
  server.addTool({ name: "greet", description: "Greets by name, at once", inputSchema: { type: "object", properties: { name: { type: "string" } } } }, (args) =>
    text(`Hello, ${String(args.name ?? "World")}!`),
  );
  server.addTool(
    {
      name: "slow_compute",
      description: "Sleeps for `seconds`, as a task",
      inputSchema: { type: "object", properties: { seconds: { type: "number" }, label: { type: "string" } } },
    },
    (args) =>
      runAsTask(async (task) => {
        await sleep(Math.min(Number(args.seconds ?? 1), 120) * 1000, task);
        return text(`computed ${String(args.label ?? "")}`);
      }),
  );
  server.addTool({ name: "failing_job", description: "Always ends with a tool error; only runs as a task", inputSchema: object }, () =>
    runAsTask(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return { content: [{ type: "text", text: "the job failed" }], isError: true };
      },
      { required: true },
    ),
  );
  server.addTool({ name: "protocol_error_job", description: "Ends with a JSON-RPC error", inputSchema: object }, () =>
    runAsTask(async () => {
      throw new McpError(-32603, "the job crashed");
    }),
  );
  server.addTool(
    {
      name: "confirm_delete",
      description: "Asks for confirmation during the task",
      inputSchema: { type: "object", properties: { filename: { type: "string" } } },
    },
    (args) =>
      runAsTask(async (task) => {
        const answers = await task.ask({ confirm: confirm(`Delete ${String(args.filename)}?`) });
        return text(`confirmation for ${String(args.filename)}: ${JSON.stringify(answers.confirm)}`);
      }),
  );
  server.addTool({ name: "multi_input", description: "Asks two questions at once during the task", inputSchema: object }, () =>
    runAsTask(async (task) => {
      const answers = await task.ask({ first: confirm("First?"), second: confirm("Second?") });
      return text(`answered ${Object.keys(answers).sort().join(", ")}`);
    }),
  );
  server.addTool({ name: "test_tool_with_task", description: "Asks for a name, then runs as a task", inputSchema: object }, (_args, _context, input) => {
    const answer = input.response("user_name", "elicitation/create");
    if (answer?.action !== "accept") {
      return input.ask({
        user_name: inputRequest.elicit({ mode: "form", message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }),
      });
    }
    const name = String(answer.content?.name ?? "");
    return runAsTask(async () => text(`Hello, ${name}!`), { required: true });
  });
}

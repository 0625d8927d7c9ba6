import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import {
  ajvSchemaValidator,
  createServer,
  inputRequest,
  McpError,
  MemoryTaskStore,
  runAsTask,
  ToolOutputError,
  type RuntimeEvent,
  type TaskContext,
} from "../../../packages/runtime/src/index.js";
import { checkMcpHeaders } from "../../../packages/runtime/src/transports/http-request.js";
import { Peer, PROTOCOL_VERSION, REQUEST_META, until } from "../../support/runtime-peer.js";

/** The header checks take a header source (a web Headers here, as the fetch path gives them). */
const checkHeaders = (headers: Record<string, string>, message: Parameters<typeof checkMcpHeaders>[1]) => checkMcpHeaders(new Headers(headers), message);

const T = { timeout: 20_000 };
const TASKS = "io.modelcontextprotocol/tasks";
/** Request `_meta` of a client that declared the tasks extension. */
const WITH_TASKS = { ...REQUEST_META, "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } };

/** A gate the test opens; a task's work waits on it (or on cancellation). */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, wait: (task: TaskContext) => Promise.race([opened, new Promise<void>((resolve) => task.signal.addEventListener("abort", () => resolve()))]) };
}

function tasksServer(options: Parameters<typeof createServer>[0]["tasks"] = {}) {
  const server = createServer({ name: "tasks", version: "1", tasks: options });
  const release = gate();
  const seen: { aborted?: boolean } = {};
  server.addTool({ name: "wait", inputSchema: { type: "object" } }, () =>
    runAsTask(async (task) => {
      await release.wait(task);
      seen.aborted = task.signal.aborted;
      return { content: [{ type: "text", text: "done" }] };
    }),
  );
  server.addTool({ name: "short", inputSchema: { type: "object" } }, () => runAsTask(async () => ({ content: [{ type: "text", text: "x" }] }), { ttlMs: 1 }));
  server.addTool({ name: "only_task", inputSchema: { type: "object" } }, () => runAsTask(async () => ({ content: [] }), { required: true }));
  server.addTool({ name: "ask_two", inputSchema: { type: "object" } }, () =>
    runAsTask(async (task) => {
      const question = (message: string) => inputRequest.elicit({ mode: "form", message, requestedSchema: { type: "object", properties: {} } });
      const answers = await task.ask({ a: question("A?"), b: question("B?") });
      return { content: [{ type: "text", text: JSON.stringify(answers) }] };
    }),
  );
  server.addTool({ name: "throws", inputSchema: { type: "object" } }, () =>
    runAsTask(async () => {
      throw new Error("broke");
    }),
  );
  server.addTool({ name: "big", inputSchema: { type: "object" } }, () => runAsTask(async () => ({ content: [{ type: "text", text: "x".repeat(5000) }] })));
  return { server, release, seen };
}

async function start(peer: Peer, tool: string) {
  const created = (await peer.request("tools/call", { name: tool, _meta: WITH_TASKS })).result;
  assert.equal(created.resultType, "task", JSON.stringify(created));
  return created.taskId as string;
}
const get = async (peer: Peer, taskId: string) => peer.request("tasks/get", { taskId, _meta: WITH_TASKS });
async function settled(peer: Peer, taskId: string, status: string) {
  let last: any;
  for (let attempt = 0; attempt < 200; attempt++) {
    last = (await get(peer, taskId)).result;
    if (last?.status === status) return last;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`task ${taskId} never reached ${status}; last ${JSON.stringify(last)}`);
}

describe("tasks extension: tools/call answered with a task, tasks/get, tasks/update, tasks/cancel", () => {
  it("a task is created flat with resultType task, readable at once, and completes with its result inlined", T, async () => {
    const { server, release } = tasksServer();
    const peer = await Peer.connect(server, "test");
    const taskId = await start(peer, "wait");
    const working = (await get(peer, taskId)).result;
    assert.equal(working.status, "working");
    assert.equal(working.resultType, "complete");
    assert.equal(working.result, undefined);
    release.open();
    const done = await settled(peer, taskId, "completed");
    assert.deepEqual(done.result.content, [{ type: "text", text: "done" }]);
    const discover = (await peer.request("server/discover")).result;
    assert.deepEqual(discover.capabilities.extensions[TASKS], {}, "the extension is advertised");
    await server.close();
  });

  it("on close a task still running is marked failed in the store before its work is aborted, not left working", T, async () => {
    const store = new MemoryTaskStore();
    const { server, seen } = tasksServer({ store });
    const peer = await Peer.connect(server, "test");
    const taskId = await start(peer, "wait");
    await server.close();
    const stored = await store.get(taskId);
    assert.equal(stored?.status, "failed");
    assert.equal(stored?.error?.code, -32603);
    assert.match(stored?.error?.message ?? "", /shut down before it finished/);
    await until(() => seen.aborted === true, "the work's signal was aborted");
    assert.equal((await store.get(taskId))?.status, "failed", "the aborted work's own answer did not overwrite it");
  });

  it("tasks/get for an unknown task id is -32602", T, async () => {
    const { server } = tasksServer();
    const peer = await Peer.connect(server, "test");
    const answer = await get(peer, "no-such-task");
    assert.equal(answer.error.code, -32602);
    assert.match(answer.error.message, /not found/);
    await server.close();
  });

  it("tasks/get for an expired task is -32602", T, async () => {
    const { server } = tasksServer();
    const peer = await Peer.connect(server, "test");
    const taskId = await start(peer, "short");
    const expiresAt = Date.now() + 2;
    while (Date.now() <= expiresAt) await new Promise((resolve) => setTimeout(resolve, 2));
    const answer = await get(peer, taskId);
    assert.equal(answer.error?.code, -32602, JSON.stringify(answer));
    assert.match(answer.error.message, /expired/);
    await server.close();
  });

  it("a client that did not declare the extension gets -32021 on tasks/*, runs optional task tools inline, and -32021 on required ones", T, async () => {
    const { server, release } = tasksServer();
    const peer = await Peer.connect(server, "test");
    for (const [method, params] of [
      ["tasks/get", { taskId: "x" }],
      ["tasks/update", { taskId: "x", inputResponses: {} }],
      ["tasks/cancel", { taskId: "x" }],
    ] as const) {
      const answer = await peer.request(method, params);
      assert.equal(answer.error?.code, -32021, method);
      assert.deepEqual(answer.error.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } });
    }
    release.open();
    const inline = (await peer.request("tools/call", { name: "wait" })).result;
    assert.equal(inline.resultType, "complete");
    assert.equal(inline.taskId, undefined);
    assert.equal((await peer.request("tools/call", { name: "only_task" })).error?.code, -32021);
    const thrown = (await peer.request("tools/call", { name: "throws" })).result;
    assert.deepEqual([thrown.isError, thrown.content[0].text], [true, "broke"], "inline, a throw is a tool error as in any tool");
    await server.close();
  });

  it("tasks/cancel acks with an empty result, the task is cancelled and its work aborted; cancelling again acks too", T, async () => {
    const { server, seen } = tasksServer();
    const peer = await Peer.connect(server, "test");
    const taskId = await start(peer, "wait");
    const ack = (await peer.request("tasks/cancel", { taskId, _meta: WITH_TASKS })).result;
    assert.deepEqual(Object.keys(ack).sort(), ["_meta", "resultType"]);
    assert.equal(ack.resultType, "complete");
    assert.equal((await get(peer, taskId)).result.status, "cancelled");
    await until(() => seen.aborted !== undefined, "the work to end");
    assert.equal(seen.aborted, true);
    assert.equal((await get(peer, taskId)).result.status, "cancelled", "the work's late result does not undo the cancel");
    assert.equal((await peer.request("tasks/cancel", { taskId, _meta: WITH_TASKS })).result.resultType, "complete");
    assert.equal((await peer.request("tasks/cancel", { taskId: "nope", _meta: WITH_TASKS })).error?.code, -32602);
    await server.close();
  });

  it("an input_required task lists its requests, keeps the unanswered one after a partial tasks/update, and completes with the answers", T, async () => {
    const { server } = tasksServer();
    const peer = await Peer.connect(server, "test");
    const taskId = await start(peer, "ask_two");
    const waiting = await settled(peer, taskId, "input_required");
    assert.deepEqual(Object.keys(waiting.inputRequests).sort(), ["a", "b"]);
    const update = (answers: object) => peer.request("tasks/update", { taskId, inputResponses: answers, _meta: WITH_TASKS });
    assert.equal((await update({ a: { action: "accept", content: { v: 1 } }, never_asked: { action: "accept" } })).result.resultType, "complete");
    const partial = (await get(peer, taskId)).result;
    assert.equal(partial.status, "input_required");
    assert.deepEqual(Object.keys(partial.inputRequests), ["b"]);
    await update({ b: { action: "decline" } });
    const done = await settled(peer, taskId, "completed");
    assert.deepEqual(JSON.parse(done.result.content[0].text), { a: { action: "accept", content: { v: 1 } }, b: { action: "decline" } });
    assert.equal((await update({ a: { action: "accept" } })).result.resultType, "complete", "answers to an ended task are ignored");
    await server.close();
  });

  it("a listen stream with taskIds gets notifications/tasks for those tasks only; without the extension it is refused with -32021", T, async () => {
    const { server, release } = tasksServer();
    const peer = await Peer.connect(server, "test");
    const watched = await start(peer, "wait");
    const other = await start(peer, "ask_two");
    const refused = await peer.request("subscriptions/listen", { notifications: { taskIds: [watched] } });
    assert.equal(refused.error?.code, -32021);
    // Also when another handler would honor the rest of the filter.
    server.addSubscriptionHandler({
      subscribe: () => ({ stream: null }),
      handleMessage: (_m, _c, state) => ({ stream: state }),
      subscriptionCapabilities: () => ({ toolsListChanged: true }),
    });
    const mixed = await peer.request("subscriptions/listen", { notifications: { toolsListChanged: true, taskIds: [watched] } });
    assert.equal(mixed.error?.code, -32021, JSON.stringify(mixed));
    assert.deepEqual(mixed.error.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } });
    const streamId = peer.send("subscriptions/listen", { notifications: { taskIds: [watched] }, _meta: WITH_TASKS });
    const ack = await peer.waitFor(
      (m) => m.method === "notifications/subscriptions/acknowledged" && m.params._meta?.["io.modelcontextprotocol/subscriptionId"] === streamId,
      "the ack",
    );
    assert.deepEqual(ack.params.notifications, { taskIds: [watched] });
    await settled(peer, other, "input_required");
    release.open();
    await settled(peer, watched, "completed");
    const done = await peer.waitFor((m) => m.method === "notifications/tasks" && m.params.status === "completed", "the completion notification");
    assert.equal(done.params.taskId, watched);
    assert.equal(done.params.result.content[0].text, "done");
    const tasksSeen = peer
      .stream(streamId)
      .filter((m) => m.method === "notifications/tasks")
      .map((m) => m.params.taskId);
    assert.ok(tasksSeen.length > 0 && tasksSeen.every((id) => id === watched), `only the watched task: ${JSON.stringify(tasksSeen)}`);
    await server.close();
  });

  it("a task belongs to the principal that created it: another principal gets -32602 and no notifications of it", T, async () => {
    const { server, release } = tasksServer();
    const alice = await Peer.connect(server, "test", { principal: "alice" });
    const bob = await Peer.connect(server, "test", { principal: "bob" });
    const taskId = await start(alice, "wait");
    assert.equal((await get(alice, taskId)).result.status, "working");
    assert.equal((await get(bob, taskId)).error?.code, -32602);
    assert.equal((await bob.request("tasks/cancel", { taskId, _meta: WITH_TASKS })).error?.code, -32602);
    const aliceStream = alice.send("subscriptions/listen", { notifications: { taskIds: [taskId] }, _meta: WITH_TASKS });
    const bobStream = bob.send("subscriptions/listen", { notifications: { taskIds: [taskId] }, _meta: WITH_TASKS });
    for (const [peer, id] of [
      [alice, aliceStream],
      [bob, bobStream],
    ] as const) {
      await peer.waitFor(
        (m) => m.method === "notifications/subscriptions/acknowledged" && m.params._meta?.["io.modelcontextprotocol/subscriptionId"] === id,
        "an ack",
      );
    }
    release.open();
    await alice.waitFor((m) => m.method === "notifications/tasks" && m.params.status === "completed", "alice's notification");
    await bob.sync();
    assert.deepEqual(
      bob.messages.filter((m) => m.method === "notifications/tasks"),
      [],
      "bob hears nothing of alice's task",
    );
    await server.close();
  });

  it("tasks/update answers larger than maxTaskBytes are refused with -32602", T, async () => {
    const { server } = tasksServer({ limits: { maxTaskBytes: 4000 } });
    const peer = await Peer.connect(server, "test");
    const taskId = await start(peer, "ask_two");
    await settled(peer, taskId, "input_required");
    const answer = await peer.request("tasks/update", {
      taskId,
      inputResponses: { a: { action: "accept", content: { v: "x".repeat(5000) } } },
      _meta: WITH_TASKS,
    });
    assert.equal(answer.error?.code, -32602);
    assert.equal((await get(peer, taskId)).result.status, "input_required", "nothing was taken");
    await server.close();
  });
});

describe("tasks extension: bounds", () => {
  it("a task beyond maxTasks is refused with -32603 naming the limit", T, async () => {
    const { server } = tasksServer({ limits: { maxTasks: 2 } });
    const peer = await Peer.connect(server, "test");
    await start(peer, "wait");
    await start(peer, "wait");
    const third = await peer.request("tools/call", { name: "wait", _meta: WITH_TASKS });
    assert.equal(third.error?.code, -32603);
    assert.match(third.error.message, /limit of 2/);
    await server.close();
  });

  it("a result larger than maxTaskBytes fails the task instead of being stored", T, async () => {
    const { server } = tasksServer({ limits: { maxTaskBytes: 2000 } });
    const peer = await Peer.connect(server, "test");
    const taskId = await start(peer, "big");
    const failed = await settled(peer, taskId, "failed");
    assert.equal(failed.error.code, -32603);
    assert.match(failed.error.message, /2000 bytes/);
    assert.equal(failed.result, undefined);
    await server.close();
  });

  it("a TTL is capped at maxTtlMs", T, async () => {
    const server = createServer({ name: "ttl", version: "1", tasks: { limits: { maxTtlMs: 5000 } } });
    server.addTool({ name: "long", inputSchema: { type: "object" } }, () => runAsTask(async () => ({ content: [] }), { ttlMs: 10 * 24 * 3600_000 }));
    const peer = await Peer.connect(server, "test");
    const created = (await peer.request("tools/call", { name: "long", _meta: WITH_TASKS })).result;
    assert.equal(created.ttlMs, 5000);
    await server.close();
  });

  it("the memory store refuses a create beyond its count once expired tasks are purged", async () => {
    let now = 0;
    const store = new MemoryTaskStore(1, () => now);
    const task = (taskId: string) => ({ taskId, status: "working" as const, createdAt: "", lastUpdatedAt: "", ttlMs: 10, expiresAt: 10 });
    await store.create(task("a"));
    await assert.rejects(store.create(task("b")), /limit of 1/);
    now = 11;
    await store.create(task("b"));
    assert.equal(store.size, 1, "the expired task made room");
  });
});

describe("tasks extension over Streamable HTTP: Mcp-Name carries the task id", () => {
  it("tasks/get needs Mcp-Name equal to params.taskId (-32020 otherwise)", () => {
    const message = {
      jsonrpc: "2.0" as const,
      id: 1,
      method: "tasks/get",
      params: { taskId: "t-1", _meta: { "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION } },
    };
    const headers = { "mcp-method": "tasks/get", "mcp-protocol-version": PROTOCOL_VERSION };
    assert.equal(checkHeaders({ ...headers, "mcp-name": "t-1" }, message), undefined);
    const wrong = checkHeaders({ ...headers, "mcp-name": "t-2" }, message);
    assert.equal(wrong?.status, 400);
    assert.equal((wrong?.body as any).error.code, -32020);
    assert.match((wrong?.body as any).error.message, /params\.taskId/);
    assert.equal((checkHeaders(headers, message)?.body as any).error.code, -32020, "missing");
  });
});

// McpError from a task's work fails it with that error (checked end to end by the conformance suite's protocol_error_job).
void McpError;

describe("a task's result is held to its tool's outputSchema, as a direct answer is", () => {
  function validatedServer(events: RuntimeEvent[]) {
    const server = createServer({
      name: "checked",
      version: "1",
      validator: ajvSchemaValidator(new Ajv2020({ strict: false })),
      onEvent: (event) => events.push(event),
    });
    const outputSchema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
    server.addTool({ name: "bad_task", inputSchema: { type: "object" }, outputSchema }, () =>
      runAsTask(async () => ({ content: [], structuredContent: { n: "not a number" } })),
    );
    return server;
  }
  const outputErrors = (events: RuntimeEvent[]) => events.filter((event) => event.type === "handler-error" && event.error instanceof ToolOutputError);

  it("a task whose result breaks outputSchema fails with -32603, stores no result, and the violation reaches onEvent", T, async () => {
    const events: RuntimeEvent[] = [];
    const server = validatedServer(events);
    const peer = await Peer.connect(server, "test");
    const taskId = await start(peer, "bad_task");
    const failed = await settled(peer, taskId, "failed");
    assert.equal(failed.error.code, -32603);
    assert.equal(failed.result, undefined);
    assert.equal(outputErrors(events).length, 1);
    await server.close();
  });

  it("run inline for a client without the extension, the same result is answered -32603, not sent as valid", T, async () => {
    const events: RuntimeEvent[] = [];
    const server = validatedServer(events);
    const peer = await Peer.connect(server, "test");
    const answer = await peer.request("tools/call", { name: "bad_task", _meta: REQUEST_META });
    assert.equal(answer.error?.code, -32603, JSON.stringify(answer));
    assert.equal(answer.result, undefined);
    assert.equal(outputErrors(events).length, 1);
    await server.close();
  });
});

/**
 * What one task write costs while many tasks run: the rules are counted (copies of a write,
 * listener calls per write), never timed.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer, MemoryTaskStore, runAsTask, type StoredTask, type TaskContext } from "../../../packages/runtime/src/index.js";
import { Peer, REQUEST_META } from "../../support/runtime-peer.js";

const T = { timeout: 20_000 };
const TASKS = "io.modelcontextprotocol/tasks";
const WITH_TASKS = { ...REQUEST_META, "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } };

const stored = (taskId: string): StoredTask => ({ taskId, status: "working", createdAt: "", lastUpdatedAt: "", ttlMs: 60_000, expiresAt: Date.now() + 60_000 });

/** The memory store, counting how many times its listeners are called. */
class CountingStore extends MemoryTaskStore {
  deliveries = 0;
  override watch(listener: (task: StoredTask) => void): () => void {
    return super.watch((task) => {
      this.deliveries++;
      listener(task);
    });
  }
}

describe("tasks: one copy per write, however many tasks run", () => {
  it("a write to the memory store is copied once, whatever the number of listeners", async () => {
    const store = new MemoryTaskStore();
    await store.create(stored("t"));
    const heard: StoredTask[] = [];
    for (let i = 0; i < 50; i++) store.watch((task) => heard.push(task));
    // Every copy (a clone or a serialisation) reads the answer once: the getter counts them.
    let copies = 0;
    const answer = {
      get text() {
        copies++;
        return "x".repeat(1000);
      },
    };
    await store.update("t", (task) => ({ ...task, inputResponses: { a: answer } }));
    assert.equal(copies, 1);
    assert.equal(heard.length, 50);
    assert.ok(
      heard.every((task) => task === heard[0]),
      "every listener gets the one copy",
    );
    assert.equal(((await store.get("t"))?.inputResponses?.["a"] as { text: string }).text.length, 1000);
  });

  it("creating a task calls the store's listeners once, however many tasks run (creation O(1))", T, async () => {
    const store = new CountingStore();
    const server = createServer({ name: "costs", version: "1", tasks: { store } });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    server.addTool({ name: "wait", inputSchema: { type: "object" } }, () =>
      runAsTask(async (_task: TaskContext) => {
        await released;
        return { content: [] };
      }),
    );
    const peer = await Peer.connect(server, "test");
    const running = 40;
    for (let i = 0; i < running; i++) {
      const created = (await peer.request("tools/call", { name: "wait", _meta: WITH_TASKS })).result;
      assert.equal(created.resultType, "task");
    }
    // One watch for the whole service: the first create predates it, each later one is heard once.
    assert.equal(store.deliveries, running - 1);
    release();
    await server.close();
  });
});

describe("tasks: a per-client share of unfinished tasks; finished tasks count against bytes, not slots", () => {
  function server(limits: Record<string, number>) {
    const built = createServer({ name: "shares", version: "1", tasks: { limits } });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    built.addTool({ name: "wait", inputSchema: { type: "object" } }, () =>
      runAsTask(async () => {
        await released;
        return { content: [] };
      }),
    );
    built.addTool({ name: "quick", inputSchema: { type: "object" } }, () => runAsTask(async () => ({ content: [] })));
    return { server: built, release };
  }
  const call = (peer: Peer, name: string) => peer.request("tools/call", { name, _meta: WITH_TASKS });

  it("a client past maxTasksPerClient is refused with -32603 naming its share while another client is served", T, async () => {
    const { server: built, release } = server({ maxTasksPerClient: 2 });
    const alice = await Peer.connect(built, "test", { principal: { sub: "alice" } });
    const bob = await Peer.connect(built, "test", { principal: { sub: "bob" } });
    assert.equal((await call(alice, "wait")).result?.resultType, "task");
    assert.equal((await call(alice, "wait")).result?.resultType, "task");
    const refused = await call(alice, "wait");
    assert.equal(refused.error?.code, -32603);
    assert.match(refused.error.message, /2 unfinished tasks, its share/);
    // The share is the principal's: a second connection of alice is the same client.
    const aliceAgain = await Peer.connect(built, "test", { principal: { sub: "alice" } });
    assert.equal((await call(aliceAgain, "wait")).error?.code, -32603);
    assert.equal((await call(bob, "wait")).result?.resultType, "task", "another client is still served");
    release();
    await built.close();
  });

  it("finished tasks do not hold maxTasks slots: quick tasks past the count are all served", T, async () => {
    const { server: built } = server({ maxTasks: 3 });
    const peer = await Peer.connect(built, "test");
    for (let i = 0; i < 10; i++) {
      const created = await call(peer, "quick");
      assert.equal(created.result?.resultType, "task", JSON.stringify(created));
      // The next call comes once this task has finished, as quick calls from one client do.
      let status: string | undefined;
      while (status !== "completed") status = (await peer.request("tasks/get", { taskId: created.result.taskId, _meta: WITH_TASKS })).result?.status;
    }
    await built.close();
  });
});

describe("tasks: a server-wide byte budget for stored tasks (maxStoredBytes)", () => {
  it("finished results past the budget evict the oldest finished tasks; every new task is still served", T, async () => {
    const store = new MemoryTaskStore(undefined, undefined, 20_000);
    const server = createServer({ name: "bytes", version: "1", tasks: { store } });
    server.addTool({ name: "big", inputSchema: { type: "object" } }, () => runAsTask(async () => ({ content: [{ type: "text", text: "x".repeat(5000) }] })));
    const peer = await Peer.connect(server, "test");
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const created = (await peer.request("tools/call", { name: "big", _meta: WITH_TASKS })).result;
      assert.equal(created.resultType, "task", JSON.stringify(created));
      ids.push(created.taskId);
      let status: string | undefined;
      while (status !== "completed") status = (await peer.request("tasks/get", { taskId: created.taskId, _meta: WITH_TASKS })).result?.status;
      assert.ok(store.storedBytes <= 20_000, `${store.storedBytes} bytes stored`);
    }
    const oldest = await peer.request("tasks/get", { taskId: ids[0], _meta: WITH_TASKS });
    assert.match(oldest.error?.message ?? "", /not found/, "the oldest result was evicted");
    const newest = (await peer.request("tasks/get", { taskId: ids[9], _meta: WITH_TASKS })).result;
    assert.equal(newest.result.content[0].text.length, 5000);
    await server.close();
  });

  it("a write that does not fit beside unfinished tasks alone is refused, naming the budget", async () => {
    const store = new MemoryTaskStore(undefined, undefined, 1000);
    await store.create(stored("a"));
    const big = { a: { text: "x".repeat(2000) } };
    await assert.rejects(
      store.update("a", (task) => ({ ...task, inputResponses: big })),
      /limit of 1000 bytes of stored tasks/,
    );
    assert.equal((await store.get("a"))?.inputResponses, undefined, "the task is as it was");
    assert.ok(store.storedBytes <= 1000);
  });
});

/**
 * Redis stopped for about 5 s under three replicas behind the README's HAProxy recipe: every
 * replica stays ready (degraded, not down), so the balancer keeps sending work; what needs no
 * Redis (server/discover, tools/list) is served through it, what needs Redis (a 2025-11-25
 * initialize, tasks/get, a listen) gets a retryable error, and each replica's log has one line for the
 * outage, one for the recovery, and one per failed request naming its cause. Once Redis is
 * back everything is served again.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../../support/eventually.js";
import { haproxyMissing, type Balancer } from "../../support/haproxy.js";
import { postJsonRpc } from "../../support/json-rpc-post.js";
import { startRedisServer, type RedisServer } from "../../support/redis-server.js";
import { addLongJobTool, startRecipeBalancer, startReplicas, type Replicas } from "./replicas.js";
import { isWhole, scaffoldProject, type ScaffoldedProject } from "./scaffolded.js";

const REPLICAS = 3;
/** How long Redis stays away. */
const OUTAGE_MS = 5000;
/** Bound of every wait for a state to be reached (degraded, whole, HAProxy's view). */
const WAIT_MS = 20_000;
/** Rounds of the requests that need no Redis: each round-robin round reaches every replica. */
const ROUNDS = REPLICAS * 2;
const DEGRADED_BODY = "degraded: event source, task store, session store\n";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "redis-degraded", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

/** One HTTP answer: its status, Retry-After, and the JSON-RPC message it carried. */
interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly message: any;
}

let nextId = 1;

/** POSTs one JSON-RPC request to `url` (bounded) and reads its answer, JSON or the last SSE event. */
async function post(url: string, message: Record<string, unknown>): Promise<Answer> {
  const answer = await postJsonRpc(url, message, WAIT_MS);
  return { status: answer.status, retryAfter: answer.headers.get("retry-after"), message: answer.message };
}

/** A 2026-07-28 request; its id is unique in this file, so the log line of its failure can be found. */
function modern(url: string, method: string, params: Record<string, unknown> = {}): Promise<Answer> & { id: number } {
  const id = nextId++;
  return Object.assign(post(url, { jsonrpc: "2.0", id, method, params: { ...params, _meta: META } }), { id });
}

/** A 2025-11-25 initialize, as a client opening a session sends it. */
function legacyInitialize(url: string): Promise<Answer> & { id: number } {
  const id = nextId++;
  const params = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "redis-degraded", version: "1.0.0" } };
  const message = { jsonrpc: "2.0", id, method: "initialize", params };
  return Object.assign(post(url, message), { id });
}

describe("Redis stopped under three replicas behind HAProxy: degraded, not down", { skip: haproxyMissing(), timeout: 300_000 }, () => {
  let redis: RedisServer;
  let project: ScaffoldedProject;
  let replicas: Replicas;
  let balancer: Balancer;

  before(async () => {
    redis = await startRedisServer();
    project = scaffoldProject(["--transport", "http", "--event-source", "redis"], addLongJobTool);
    replicas = await startReplicas(project, REPLICAS, { REDIS_URL: redis.url });
    balancer = await startRecipeBalancer(project, replicas.ports);
  });
  after(async () => {
    await balancer?.stop();
    await replicas?.stop();
    project?.remove();
    await redis?.stop();
  });

  test("during a 5 s outage discover and tools/list answer through the balancer, what needs Redis gets a retryable error, the log names the outage and each failure; then all is served again", async (t) => {
    const endpoint = `${balancer.url}/mcp`;
    const origins = replicas.ports.map((port) => `http://127.0.0.1:${port}`);
    // What each replica logged from the outage on: a start may have logged its own connecting.
    let logStarts: number[] = [];
    const logs = () => replicas.ports.map((_, i) => replicas.server(i).stderr().slice(logStarts[i]));
    for (let i = 0; i < REPLICAS; i++) await balancer.waitFor(i, true, WAIT_MS);
    const task = (await modern(endpoint, "tools/call", { name: "long_job", arguments: {} })).message.result;
    assert.equal(task?.resultType, "task", "a task was started before the outage");

    logStarts = replicas.ports.map((_, i) => replicas.server(i).stderr().length);
    await redis.kill();
    const outageAt = Date.now();
    try {
      let bodies: string[] = [];
      const degradedEverywhere = async () => {
        bodies = await Promise.all(
          origins.map(async (origin) => `${(await fetch(`${origin}/readyz`)).status} ${await (await fetch(`${origin}/readyz`)).text()}`),
        );
        return bodies.every((body) => body === `200 ${DEGRADED_BODY}`);
      };
      assert.ok(await eventually(degradedEverywhere, WAIT_MS), `every replica's /readyz stays 200 and names what is degraded: ${JSON.stringify(bodies)}`);
      const healthLines = () => logs().map((log) => log.match(/^warn: health: degraded: .*$/gm) ?? []);
      assert.ok(await eventually(() => healthLines().every((lines) => lines.length > 0), WAIT_MS), "every replica logged that it is degraded");

      for (let round = 0; round < ROUNDS; round++) {
        const discover = await modern(endpoint, "server/discover");
        assert.equal(discover.status, 200, `server/discover answered through the balancer: ${JSON.stringify(discover.message)}`);
        assert.equal(discover.message.error, undefined, JSON.stringify(discover.message));
        const listed = await modern(endpoint, "tools/list");
        const names = (listed.message.result?.tools ?? []).map((tool: { name: string }) => tool.name);
        assert.ok(names.includes("toggle_greet"), `tools/list answered through the balancer: ${JSON.stringify(listed.message)}`);
      }

      const failed: number[] = [];
      for (let round = 0; round < REPLICAS; round++) {
        const initialize = legacyInitialize(endpoint);
        const refused = await initialize;
        assert.equal(refused.status, 503, `a 2025-11-25 initialize needs the session store: ${JSON.stringify(refused.message)}`);
        assert.ok(refused.retryAfter !== null, "its 503 says when to retry");
        assert.match(refused.message.error?.message ?? "", /retry/, "and its JSON-RPC error says to retry");
        const read = modern(endpoint, "tasks/get", { taskId: task.taskId });
        const answer = await read;
        assert.equal(answer.message.error?.code, -32603, `tasks/get needs the task store: ${JSON.stringify(answer.message)}`);
        assert.match(answer.message.error.message, /retry the request shortly/, "its error says to retry");
        failed.push(initialize.id, read.id);
      }
      const listen = modern(endpoint, "subscriptions/listen", { notifications: { toolsListChanged: true } });
      const refusedListen = await listen;
      t.diagnostic(`listen while Redis is away: ${JSON.stringify(refusedListen.message)}`);
      assert.equal(refusedListen.message.error?.code, -32603, "a listen needs the event source");
      assert.match(refusedListen.message.error.message, /listen again shortly/, "its error says to listen again");

      const up = await Promise.all(origins.map((_, i) => balancer.isUp(i)));
      assert.deepEqual(up, [true, true, true], "HAProxy kept every replica in the backend");
      const lines = logs().flatMap((log) => log.split("\n"));
      for (const id of failed) {
        const named = lines.filter((line) => line.includes(`(request ${id}) failed:`));
        assert.equal(named.length, 1, `one log line for failed request ${id}: ${named.join(" | ")}`);
        assert.match(named[0]!, /session store does not answer|out of reach/, `the line names the cause: ${named[0]}`);
      }
      const listenLines = lines.filter((line) => line.startsWith(`warn: listen ${listen.id} refused:`));
      assert.equal(listenLines.length, 1, `one log line for the refused listen: ${listenLines.join(" | ")}`);
      assert.match(listenLines[0]!, /event source is out of reach/, "naming its cause");
      t.diagnostic(
        `failure lines: ${lines
          .filter((line) => /\(request \d+\) failed:/.test(line))
          .slice(0, 2)
          .join(" | ")}`,
      );
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, outageAt + OUTAGE_MS - Date.now())));
    } finally {
      if (!redis.running) await redis.restart();
    }

    assert.ok(await eventually(async () => (await Promise.all(origins.map((origin) => isWhole(origin)))).every(Boolean), WAIT_MS), "every replica whole again");
    const recovered = () => logs().map((log) => (log.match(/^warn: health: recovered: .*$/gm) ?? []).length);
    assert.ok(await eventually(() => recovered().every((count) => count === 1), WAIT_MS), `each replica logged its recovery once: ${recovered()}`);
    const degradedLines = logs().map((log) => (log.match(/^warn: health: degraded: .*$/gm) ?? []).length);
    assert.deepEqual(degradedLines, [1, 1, 1], "each replica logged the outage once, not per request");

    for (let round = 0; round < REPLICAS; round++) {
      const opened = await legacyInitialize(endpoint);
      assert.equal(opened.status, 200, `a 2025-11-25 session opens again: ${JSON.stringify(opened.message)}`);
      const started = await modern(endpoint, "tools/call", { name: "long_job", arguments: {} });
      assert.equal(started.message.result?.resultType, "task", `a task starts again: ${JSON.stringify(started.message)}`);
      const read = await modern(endpoint, "tasks/get", { taskId: started.message.result.taskId });
      assert.equal(read.message.result?.status, "working", `and is read through the balancer: ${JSON.stringify(read.message)}`);
      await modern(endpoint, "tasks/cancel", { taskId: started.message.result.taskId });
      const toggled = await modern(endpoint, "tools/call", { name: "toggle_greet", arguments: {} });
      assert.equal(toggled.message.result?.isError ?? false, false, `a call that publishes is served again: ${JSON.stringify(toggled.message)}`);
    }
  });
});

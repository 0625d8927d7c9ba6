/**
 * Requests that take more than one answer, through middleware: a tool asking for input, whose
 * retry (a 2026-07-28 client's own, or the round a 2025-11-25 session runs for its client)
 * passes the chain again with the answers, and a tool running as a task, whose tools/call
 * passes it with the task's creation.
 */
import assert from "node:assert/strict";
import { after, before, describe, it, test } from "node:test";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { createServer, inputRequest, runAsTask } from "../../packages/runtime/src/index.js";
import { serveHttp, type HttpServerHandle } from "../../packages/runtime/src/transports/http-server.js";
import { Peer, REQUEST_META } from "../support/runtime-peer.js";

const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
const SLOW = { timeout: 60_000 };
const ANSWER = { action: "accept" as const, content: { name: "Ada" } };

/** Opens a client that answers elicitation with ANSWER; returns its one call. */
type Open = (url: string, name: string) => Promise<{ ask(): Promise<string>; close(): Promise<void> }>;
const textOf = (result: { content?: unknown }): string => (result.content as Array<{ text: string }>)[0]!.text;

const CLIENTS: Array<[string, Open]> = [
  [
    "the 1.x SDK client (2025-11-25)",
    async (url, name) => {
      const client = new ClientV1({ name, version: "1.0.0" }, { capabilities: { elicitation: {} } });
      client.setRequestHandler(ElicitRequestSchema, () => ANSWER);
      await client.connect(new HttpV1(new URL(url)));
      return { ask: async () => textOf((await client.callTool({ name: "ask_name", arguments: {} })) as never), close: () => client.close() };
    },
  ],
  [
    "the 2.x client pinned to 2026-07-28",
    async (url, name) => {
      const client = new ClientV2({ name, version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } });
      client.setRequestHandler("elicitation/create", async () => ANSWER);
      await client.connect(new HttpV2(new URL(url)));
      return { ask: async () => textOf(await client.callTool({ name: "ask_name", arguments: {} })), close: () => client.close() };
    },
  ],
];

describe("a tool asking for input passes the chain once per round, in both eras", () => {
  const rounds: Array<{ client: string; answered: boolean }> = [];
  let handle: HttpServerHandle;

  before(async () => {
    const server = createServer({ name: "rounds", version: "1.0.0" });
    server.addTool({ name: "ask_name", inputSchema: { type: "object" } }, (_args, _context, input) => {
      const given = input.response("who", "elicitation/create");
      if (given === undefined) {
        return input.ask({ who: inputRequest.elicit({ mode: "form", message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }) });
      }
      return { content: [{ type: "text", text: `Hello, ${String(given.content?.name)}` }] };
    });
    server.use("tools/call", async (ctx, next) => {
      rounds.push({ client: (ctx.meta[CLIENT_INFO] as { name: string }).name, answered: ctx.params.inputResponses !== undefined });
      return next();
    });
    handle = await serveHttp(server, { host: "127.0.0.1", port: 0 });
  });
  after(() => handle.close());

  for (const [label, open] of CLIENTS) {
    it(label, SLOW, async () => {
      const client = await open(handle.url, label);
      try {
        assert.equal(await client.ask(), "Hello, Ada");
      } finally {
        await client.close();
      }
      assert.deepEqual(
        rounds.filter((round) => round.client === label).map((round) => round.answered),
        [false, true],
        "the first round without answers, the retry with them",
      );
    });
  }
});

test("a tools/call whose tool runs as a task passes the chain with the task's creation, and tasks/get passes it too", { timeout: 20_000 }, async () => {
  const server = createServer({ name: "tasks", version: "1.0.0" });
  server.addTool({ name: "slow", inputSchema: { type: "object" } }, () => runAsTask(async () => ({ content: [{ type: "text", text: "done" }] })));
  const answered: Array<[string, unknown]> = [];
  server.use(async (ctx, next) => {
    const result = await next();
    answered.push([ctx.method, result.resultType]);
    return result;
  });
  const peer = await Peer.connect(server, "test");
  const withTasks = { ...REQUEST_META, "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };
  try {
    const created = (await peer.request("tools/call", { name: "slow", _meta: withTasks })).result;
    assert.equal(created.resultType, "task", JSON.stringify(created));
    await peer.request("tasks/get", { taskId: created.taskId, _meta: withTasks });
    assert.deepEqual(answered, [
      ["tools/call", "task"],
      ["tasks/get", "complete"],
    ]);
  } finally {
    await server.close();
  }
});


/**
 * Middleware (`server.use`) against real clients over Streamable HTTP on 127.0.0.1: the 1.x
 * SDK client and the official 2.x client with its defaults (both open a 2025-11-25 session),
 * and the 2.x client pinned to 2026-07-28. One chain serves all three: it sees each method a
 * handler answers, with tools/call params of one shape, and what it answers, refuses, rewrites
 * or passes on reaches each client alike.
 */
import assert from "node:assert/strict";
import { after, before, describe, it, test } from "node:test";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { createServer, McpError, type RuntimeEvent } from "../../packages/runtime/src/index.js";
import { serveHttp, type HttpServerHandle } from "../../packages/runtime/src/transports/http-server.js";
import { Peer, REQUEST_META } from "../support/runtime-peer.js";

const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const SLOW = { timeout: 60_000 };
const WAIT_LIMIT_MS = 10_000;
/** A server error code of the server's choosing (-32042 would be 2025-11-25's URL elicitation required), with retry advice in its data. */
const QUOTA_CODE = -32000;

interface Seen {
  client: string;
  method: string;
  params: Record<string, any>;
}

/** What every scenario needs of a client, whichever generation and era. */
interface AnyClient {
  name: string;
  call(name: string, args?: Record<string, unknown>, signal?: AbortSignal): Promise<string>;
  /** Lists and reads what the server offers: tools, resources, a resource, prompts, a prompt. */
  browse(): Promise<void>;
  close(): Promise<void>;
}

const textOf = (result: { content?: unknown }): string => (result.content as Array<{ text: string }>).map((block) => block.text).join("|");

async function v1Client(url: string, name: string): Promise<AnyClient> {
  const client = new ClientV1({ name, version: "1.0.0" });
  await client.connect(new HttpV1(new URL(url)));
  return {
    name,
    call: async (tool, args = {}, signal) => textOf((await client.callTool({ name: tool, arguments: args }, undefined, signal ? { signal } : {})) as never),
    browse: async () => {
      await client.listTools();
      await client.listResources();
      await client.readResource({ uri: "notes://a" });
      await client.listPrompts();
      await client.getPrompt({ name: "greet", arguments: {} });
    },
    close: () => client.close(),
  };
}

async function v2Client(url: string, name: string, modern: boolean): Promise<AnyClient> {
  const client = new ClientV2({ name, version: "1.0.0" }, modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : undefined);
  await client.connect(new HttpV2(new URL(url)));
  return {
    name,
    call: async (tool, args = {}, signal) => textOf(await client.callTool({ name: tool, arguments: args }, signal ? { signal } : undefined)),
    browse: async () => {
      await client.listTools();
      await client.listResources();
      await client.readResource({ uri: "notes://a" });
      await client.listPrompts();
      await client.getPrompt({ name: "greet", arguments: {} });
    },
    close: () => client.close(),
  };
}

const CLIENTS: Array<[string, (url: string, name: string) => Promise<AnyClient>]> = [
  ["the 1.x SDK client (2025-11-25)", (url, name) => v1Client(url, name)],
  ["the 2.x client with its defaults (2025-11-25)", (url, name) => v2Client(url, name, false)],
  ["the 2.x client pinned to 2026-07-28", (url, name) => v2Client(url, name, true)],
];

/** The `name` a request's params carry (a tool's, a prompt's), read by an all-methods middleware. */
const nameOf = (params: object): unknown => (params as { name?: unknown }).name;

async function until<T>(what: string, find: () => T | undefined): Promise<T> {
  const giveUpAt = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > giveUpAt) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("middleware around every request, in both eras", () => {
  const seen: Seen[] = [];
  const order: string[] = [];
  const handled: Array<Record<string, unknown>> = [];
  const events: RuntimeEvent[] = [];
  const settled: string[] = [];
  let handle: HttpServerHandle;

  before(async () => {
    const server = createServer({ name: "middleware", version: "1.0.0", onEvent: (event) => void events.push(event) });
    server.addTool({ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }, (args) => {
      handled.push(args);
      return { content: [{ type: "text", text: `echo ${String(args.text)}` }] };
    });
    server.addTool({ name: "abandoned", inputSchema: { type: "object" } }, () => {
      throw new McpError(-32602, "the handler refused");
    });
    for (const name of ["rewritten", "refused", "answered", "changed", "ordered", "failing", "stuck"]) {
      server.addTool({ name, inputSchema: { type: "object" } }, (args) => (handled.push({ name, ...args }), { content: [{ type: "text", text: name }] }));
    }
    server.addResource({ uri: "notes://a", name: "a", mimeType: "text/plain" }, () => "note a");
    server.addPrompt({ name: "greet" }, () => ({ messages: [{ role: "user", content: { type: "text", text: "hello" } }] }));

    // Registration order is chain order: audit outermost, then tools/call's, then the inner all-methods one.
    server.use(async (ctx, next) => {
      const client = (ctx.meta[CLIENT_INFO] as { name?: string } | undefined)?.name ?? "?";
      const tool = nameOf(ctx.params);
      seen.push({ client, method: ctx.method, params: ctx.params });
      if (tool === "ordered") order.push("audit in");
      try {
        return await next();
      } finally {
        if (tool === "ordered") order.push("audit out");
        if (tool === "stuck") settled.push(client);
      }
    });
    server.use("tools/call", async (ctx, next) => {
      switch (ctx.params.name) {
        case "rewritten": {
          const result = await next();
          if (!("content" in result)) return result; // an input-required answer or a task's creation carries no content
          return { ...result, content: [{ type: "text", text: "rewritten by middleware" }] };
        }
        case "refused":
          throw new McpError(QUOTA_CODE, "Quota exceeded for this caller", { retryAfterMs: 1000 });
        case "answered":
          return { content: [{ type: "text", text: "answered by middleware" }] };
        case "changed":
          return next({ ...ctx.params, arguments: { changedBy: "middleware" } });
        case "failing":
          throw new Error("the middleware broke");
        case "abandoned":
          void next(); // its refusal is never read
          void next(); // nor is this one's error
          return { content: [{ type: "text", text: "answered without waiting" }] };
        case "stuck":
          return new Promise(() => {}); // never calls next, never answers
        case "ordered":
          order.push("tools/call in");
          try {
            return await next();
          } finally {
            order.push("tools/call out");
          }
      }
      return next();
    });
    server.use(async (ctx, next) => {
      const ordered = nameOf(ctx.params) === "ordered";
      if (ordered) order.push("inner in");
      const result = await next();
      if (ordered) order.push("inner out");
      return result;
    });
    handle = await serveHttp(server, { host: "127.0.0.1", port: 0 });
  });
  after(() => handle.close());

  it("an all-methods middleware sees every method a handler answers, and tools/call params of one shape in both eras", SLOW, async () => {
    const shapes: string[][] = [];
    for (const [label, open] of CLIENTS) {
      const client = await open(handle.url, `audit ${label}`);
      try {
        await client.browse();
        assert.equal(await client.call("echo", { text: "hi" }), "echo hi");
      } finally {
        await client.close();
      }
      const mine = seen.filter((entry) => entry.client === `audit ${label}`);
      const methods = new Set(mine.map((entry) => entry.method));
      for (const method of ["tools/list", "resources/list", "resources/read", "prompts/list", "prompts/get", "tools/call"]) {
        assert.ok(methods.has(method), `${label}: the middleware saw ${method} (saw ${[...methods].join(", ")})`);
      }
      const call = mine.find((entry) => entry.method === "tools/call")!;
      assert.deepEqual({ name: call.params.name, arguments: call.params.arguments }, { name: "echo", arguments: { text: "hi" } }, label);
      assert.equal(typeof call.params._meta[PROTOCOL_VERSION], "string", `${label}: _meta names the version, as a 2026-07-28 request's does`);
      shapes.push(Object.keys(call.params).sort());
    }
    assert.deepEqual(shapes[0], ["_meta", "arguments", "name"]);
    assert.deepEqual(shapes, [shapes[0], shapes[0], shapes[0]], "the same params shape in both eras");
  });

  for (const [label, open] of CLIENTS) {
    describe(label, () => {
      let client: AnyClient;
      before(async () => (client = await open(handle.url, label)));
      after(() => client.close());

      it("a tools/call middleware rewrites the handler's result", SLOW, async () => {
        assert.equal(await client.call("rewritten"), "rewritten by middleware");
      });

      it("a middleware's refusal reaches the client as the protocol error it chose", SLOW, async () => {
        const refused = await client.call("refused").then(
          () => assert.fail("the call was answered"),
          (error: any) => error,
        );
        assert.equal(refused.code, QUOTA_CODE, String(refused));
        assert.match(refused.message, /Quota exceeded for this caller/);
        assert.deepEqual(refused.data, { retryAfterMs: 1000 });
        assert.equal(handled.filter((args) => args["name"] === "refused").length, 0, "the handler never ran");
      });

      it("a middleware answers without calling the handler", SLOW, async () => {
        assert.equal(await client.call("answered"), "answered by middleware");
        assert.equal(handled.filter((args) => args["name"] === "answered").length, 0, "the handler never ran");
      });

      it("a middleware changes the params the handler gets", SLOW, async () => {
        const before = handled.length;
        assert.equal(await client.call("changed", { changedBy: "client" }), "changed");
        assert.deepEqual(handled.slice(before), [{ name: "changed", changedBy: "middleware" }]);
      });

      it("middlewares run in registration order, each timing around next()", SLOW, async () => {
        order.length = 0;
        assert.equal(await client.call("ordered"), "ordered");
        assert.deepEqual(order, ["audit in", "tools/call in", "inner in", "inner out", "tools/call out", "audit out"]);
      });

      it("a middleware that throws is an internal error, its cause reported to onEvent", SLOW, async () => {
        const refused = await client.call("failing").then(
          () => assert.fail("the call was answered"),
          (error: any) => error,
        );
        assert.equal(refused.code, -32603);
        assert.doesNotMatch(refused.message, /the middleware broke/, "the cause stays on the server");
        const reported = events.find((event) => event.type === "handler-error" && String((event as { error?: unknown }).error).includes("the middleware broke"));
        assert.ok(reported, "onEvent got the cause");
      });

      it("a middleware that leaves next()'s failure unread answers as it chose, and the process goes on", SLOW, async () => {
        const unhandled: unknown[] = [];
        const record = (reason: unknown) => void unhandled.push(reason);
        process.on("unhandledRejection", record); // without a listener, Node ends the process on one
        try {
          assert.equal(await client.call("abandoned"), "answered without waiting");
          assert.equal(await client.call("echo", { text: "still here" }), "echo still here"); // a round trip: any rejection has surfaced
        } finally {
          process.off("unhandledRejection", record);
        }
        assert.deepEqual(unhandled.map(String), []);
      });

      it("a middleware that never calls next nor answers ends when the client cancels the request", SLOW, async () => {
        const cancel = new AbortController();
        const call = client.call("stuck", {}, cancel.signal).catch(() => "cancelled");
        await until("the stuck call to reach the middleware", () => seen.find((entry) => entry.client === label && entry.params.name === "stuck"));
        cancel.abort();
        assert.equal(await call, "cancelled");
        await until("the chain around the stuck middleware to settle", () => settled.find((name) => name === label));
      });
    });
  }
});

/** A client claiming a principal in its own `_meta`: never taken for one. */
const REQUEST_META_WITH_PRINCIPAL = { ...REQUEST_META, principal: { subject: "mallory" } };

test("a middleware sees the principal the transport vouched for, and none the client wrote in its _meta", { timeout: 20_000 }, async () => {
  const server = createServer({ name: "principal", version: "1.0.0" });
  server.addTool({ name: "echo", inputSchema: { type: "object" } }, () => ({ content: [] }));
  const principals: unknown[] = [];
  server.use(async (ctx, next) => (principals.push(ctx.principal), next()));
  const vouched = await Peer.connect(server, "test", { principal: { subject: "alice" } });
  const anonymous = await Peer.connect(server, "test");
  try {
    await vouched.request("tools/call", { name: "echo" });
    await anonymous.request("tools/call", { name: "echo", _meta: REQUEST_META_WITH_PRINCIPAL });
    assert.deepEqual(principals, [{ subject: "alice" }, undefined]);
  } finally {
    await server.close();
  }
});

/**
 * Middleware around the requests a handler's `input.ask` makes the server send its client
 * (`server.useInput`), with the official clients as the asked peers over Streamable HTTP on
 * 127.0.0.1: the 1.x SDK client (2025-11-25) and the 2.x client with its default negotiation
 * are sent `elicitation/create` and `roots/list` by an initialize-era session; the 2.x client
 * pinned to 2026-07-28 is sent none, its answers arriving on its retry instead.
 */
import assert from "node:assert/strict";
import { after, before, describe, it, test } from "node:test";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { createServer, inputRequest, McpError, type RuntimeEvent } from "../../packages/runtime/src/index.js";
import { serveHttp, type HttpServerHandle } from "../../packages/runtime/src/transports/http-server.js";
import { LegacyPeer } from "../support/legacy-peer.js";

const SLOW = { timeout: 60_000 };
const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
/** A code of the middleware's choosing, with advice in its data. */
const REFUSED_CODE = -32050;

/** What a scenario needs of a client: call a tool, and what it was asked. */
interface AskedClient {
  call(name: string): Promise<string>;
  readonly asked: string[];
  close(): Promise<void>;
}
type Open = (url: string, name: string) => Promise<AskedClient>;
const textOf = (result: { content?: unknown }): string => (result.content as Array<{ text: string }>)[0]!.text;

const LEGACY_CLIENTS: Array<[string, Open]> = [
  [
    "the 1.x SDK client (2025-11-25)",
    async (url, name) => {
      const client = new ClientV1({ name, version: "1.0.0" }, { capabilities: { elicitation: {}, roots: {} } });
      const asked: string[] = [];
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(`elicitation/create: ${request.params.message}`);
        return { action: "accept", content: { name: "ada" } };
      });
      client.setRequestHandler(ListRootsRequestSchema, () => {
        asked.push("roots/list");
        return { roots: [{ uri: "file:///from/client" }] };
      });
      await client.connect(new HttpV1(new URL(url)));
      return { call: async (tool) => textOf((await client.callTool({ name: tool, arguments: {} })) as never), asked, close: () => client.close() };
    },
  ],
  [
    "the 2.x client with its default negotiation",
    async (url, name) => {
      const client = new ClientV2({ name, version: "1.0.0" }, { capabilities: { elicitation: {}, roots: {} } });
      const asked: string[] = [];
      client.setRequestHandler("elicitation/create", async (request) => {
        asked.push(`elicitation/create: ${(request.params as { message: string }).message}`);
        return { action: "accept", content: { name: "ada" } };
      });
      client.setRequestHandler("roots/list", async () => {
        asked.push("roots/list");
        return { roots: [{ uri: "file:///from/client" }] };
      });
      await client.connect(new HttpV2(new URL(url)));
      return { call: async (tool) => textOf(await client.callTool({ name: tool, arguments: {} })), asked, close: () => client.close() };
    },
  ],
];

const NAME_SCHEMA = { type: "object" as const, properties: { name: { type: "string" as const } } };

describe("input middleware wraps the requests an initialize-era session sends for input.ask", () => {
  const seen: Array<{ client: string; method: string; asker: string | number }> = [];
  const events: RuntimeEvent[] = [];
  let handle: HttpServerHandle;

  before(async () => {
    const server = createServer({ name: "input-middleware", version: "1.0.0", onEvent: (event) => void events.push(event) });
    // Each tool asks one question, named after the tool, and shows what its retry got back.
    const elicit = (message: string) => inputRequest.elicit({ mode: "form", message, requestedSchema: NAME_SCHEMA });
    for (const tool of ["greet", "refused", "failing"]) {
      server.addTool({ name: tool, inputSchema: { type: "object" } }, (_args, _context, input) => {
        const answer = input.response("who", "elicitation/create");
        if (answer === undefined) return input.ask({ who: elicit(tool) });
        return { content: [{ type: "text", text: `Hello, ${String(answer.content?.["name"])}` }] };
      });
    }
    server.addTool({ name: "roots", inputSchema: { type: "object" } }, (_args, _context, input) => {
      const answer = input.response("roots", "roots/list");
      if (answer === undefined) return input.ask({ roots: inputRequest.listRoots() });
      return { content: [{ type: "text", text: answer.roots.map((root) => root.uri).join(" ") }] };
    });
    server.useInput(async (ctx, next) => {
      seen.push({ client: (ctx.meta[CLIENT_INFO] as { name: string }).name, method: ctx.method, asker: ctx.requestId });
      return next();
    });
    server.useInput("elicitation/create", async (ctx, next) => {
      if (ctx.params.message === "refused") throw new McpError(REFUSED_CODE, "No questions for this caller", { retryAfterMs: 1000 });
      if (ctx.params.message === "failing") throw new Error("the input middleware broke");
      const answer = await next({ ...ctx.params, message: `[example.org] ${ctx.params.message}` });
      if (answer.action !== "accept") return answer;
      return { ...answer, content: { ...answer.content, name: String(answer.content?.["name"]).toUpperCase() } };
    });
    server.useInput("roots/list", () => ({ roots: [{ uri: "file:///from/middleware" }] }));
    handle = await serveHttp(server, { host: "127.0.0.1", port: 0 });
  });
  after(() => handle.close());

  for (const [label, open] of LEGACY_CLIENTS) {
    describe(label, () => {
      let client: AskedClient;
      before(async () => (client = await open(handle.url, label)));
      after(() => client.close());

      it("an input middleware changes the params sent to the client, and the answer the handler's retry gets", SLOW, async () => {
        assert.equal(await client.call("greet"), "Hello, ADA");
        assert.deepEqual(client.asked, ["elicitation/create: [example.org] greet"]);
        const mine = seen.filter((entry) => entry.client === label);
        assert.deepEqual(mine.map((entry) => entry.method),
          ["elicitation/create"]);
        assert.ok(["number", "string"].includes(typeof mine[0]!.asker), "the asking request's id is in the context");
      });

      it("an input middleware answers without the client being asked", SLOW, async () => {
        client.asked.length = 0;
        assert.equal(await client.call("roots"), "file:///from/middleware");
        assert.deepEqual(client.asked, [], "the client was sent no roots/list");
      });

      it("an input middleware's refusal reaches the client as the protocol error it chose", SLOW, async () => {
        client.asked.length = 0;
        const refused = await client.call("refused").then(
          () => assert.fail("the call was answered"),
          (error: any) => error,
        );
        assert.equal(refused.code, REFUSED_CODE, String(refused));
        assert.match(refused.message, /No questions for this caller/);
        assert.deepEqual(refused.data, { retryAfterMs: 1000 });
        assert.deepEqual(client.asked, [], "nothing was sent to the client");
      });

      it("an input middleware that throws is an internal error, its cause reported to onEvent", SLOW, async () => {
        const refused = await client.call("failing").then(
          () => assert.fail("the call was answered"),
          (error: any) => error,
        );
        assert.equal(refused.code, -32603);
        assert.doesNotMatch(refused.message, /the input middleware broke/, "the cause stays on the server");
        assert.ok(
          events.some((event) => event.type === "handler-error" && String((event as { error?: unknown }).error).includes("the input middleware broke")),
          "onEvent got the cause",
        );
      });
    });
  }

  it("a 2026-07-28 client is sent no request: its answer comes on its retry, which the input chain does not see", SLOW, async () => {
    const label = "the 2.x client pinned to 2026-07-28";
    const client = new ClientV2({ name: label, version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } });
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: "accept", content: { name: "ada" } };
    });
    await client.connect(new HttpV2(new URL(handle.url)));
    try {
      assert.equal(textOf(await client.callTool({ name: "greet", arguments: {} })), "Hello, ada");
      assert.deepEqual(asked, ["greet"], "the handler's own question, unchanged");
      assert.deepEqual(seen.filter((entry) => entry.client === label), []);
    } finally {
      await client.close();
    }
  });
});

test("params an input middleware changes are checked again against what the client's revision can carry", { timeout: 20_000 }, async () => {
  const server = createServer({ name: "rechecked", version: "1.0.0" });
  server.addTool({ name: "greet", inputSchema: { type: "object" } }, (_args, _context, input) => {
    const answer = input.response("who", "elicitation/create");
    if (answer === undefined) return input.ask({ who: inputRequest.elicit({ mode: "form", message: "Your name?", requestedSchema: NAME_SCHEMA }) });
    return { content: [{ type: "text", text: "answered" }] };
  });
  // URL mode came with 2025-11-25: a 2025-06-18 session can carry the handler's form, not this.
  server.useInput("elicitation/create", (_ctx, next) =>
    next({ mode: "url", message: "Sign in", url: "https://example.org/sign-in" }),
  );
  const peer = await LegacyPeer.open(server);
  try {
    await peer.initialize({ protocolVersion: "2025-06-18", capabilities: { elicitation: {} }, clientInfo: { name: "older", version: "1" } });
    const answer = await peer.call("tools/call", { name: "greet", arguments: {} });
    assert.equal(answer["error"]?.code, -32600, JSON.stringify(answer));
    assert.match(answer["error"].message, /elicitation\/create, which this client cannot receive/);
    assert.ok(!peer.messages.some((message) => message["method"] === "elicitation/create"), "nothing was sent to the client");
  } finally {
    await server.close();
  }
});

test("useInput takes only the requests input.ask sends", () => {
  const server = createServer({ name: "input-methods", version: "1.0.0" });
  // @ts-expect-error tools/call is a request the client sends, not one input.ask sends
  assert.throws(() => server.useInput("tools/call", async (_ctx: unknown, next: () => Promise<object>) => next()), /not a request input\.ask sends/);
});

/** Type checks only: compiled by `npm run typecheck`, never run. Each @ts-expect-error fails tsc once the line it marks compiles. */
export function inputMiddlewareTypeChecks(): void {
  const server = createServer({ name: "typed-input", version: "1.0.0" });
  server.useInput("elicitation/create", async (ctx, next) => {
    const message: string = ctx.params.message;
    // @ts-expect-error an elicitation's message is a string
    const wrong: number = ctx.params.message;
    void wrong;
    return next({ ...ctx.params, message: message.trim() });
  });
  // @ts-expect-error an elicitation's answer has an action, not roots
  server.useInput("elicitation/create", async () => ({ roots: [] }));
  // @ts-expect-error a roots/list answer's roots are objects with a uri
  server.useInput("roots/list", async () => ({ roots: ["file:///srv"] }));
  // @ts-expect-error an all-kinds middleware cannot answer one kind's result without naming it
  server.useInput(async () => ({ action: "decline" }));
}

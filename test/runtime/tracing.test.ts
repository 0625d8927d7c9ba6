/**
 * OpenTelemetry spans (runtime/tracing.ts) recorded by the real SDK's in-memory exporter:
 * one span per request and per listen stream, named and attributed after the semantic
 * conventions for MCP, parented on the `_meta` trace context, baggage handed to the
 * handler, error types on failures; none with `tracing: false`. A server whose
 * `@opentelemetry/api` cannot be found still serves, without spans: that runs as its own
 * process, in test/e2e/runtime/tracing.test.ts.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { context, propagation, trace, SpanKind, SpanStatusCode, type TextMapPropagator } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createServer, McpError, type Server, type SubscriptionHandler } from "../../packages/runtime/src/index.js";
import { serveHttp } from "../../packages/runtime/src/transports/http-server.js";
import { Peer, REQUEST_META, until } from "../support/runtime-peer.js";

const T = { timeout: 20_000 };
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN_ID = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`;
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();

before(() => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
});
after(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});
afterEach(() => exporter.reset());

/** What the `greet` tool saw of the active context: its span and the caller's baggage. */
interface Seen {
  spanId?: string;
  user?: string;
}

function tracedServer(options: { tracing?: boolean } = {}): { server: Server; seen: Seen } {
  const seen: Seen = {};
  const server = createServer({ name: "traced", version: "1.0.0", ...options });
  server.addTool({ name: "greet", inputSchema: { type: "object" } }, () => {
    seen.spanId = trace.getActiveSpan()?.spanContext().spanId;
    seen.user = propagation.getActiveBaggage()?.getEntry("user")?.value;
    return { content: [{ type: "text", text: "hello" }] };
  });
  server.addTool({ name: "refuse", inputSchema: { type: "object" } }, () => {
    throw new McpError(-32602, "no such city");
  });
  server.addTool({ name: "crash", inputSchema: { type: "object" } }, () => {
    throw new Error("boom");
  });
  server.addTool({ name: "soft-fail", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "nope" }], isError: true }));
  return { server, seen };
}

/** A subscription handler that accepts tool-list streams and refuses everything else. */
const toolsHandler: SubscriptionHandler<undefined> = {
  subscriptionCapabilities: () => ({ toolsListChanged: true, promptsListChanged: true }),
  subscribe: (filter) => ("promptsListChanged" in filter ? { stop: new McpError(-32602, "prompts are not served here") } : { stream: undefined }),
  handleMessage: (_message, _channel, state) => ({ stream: state }),
};

function finished(name: string): ReadableSpan {
  const span = exporter.getFinishedSpans().find((candidate) => candidate.name === name);
  assert.ok(span, `a finished span named ${name}; got ${exporter.getFinishedSpans().map((s) => s.name).join(", ") || "none"}`);
  return span;
}

const withTrace = (meta: Record<string, unknown>) => ({ _meta: { ...REQUEST_META, ...meta } });

describe("OpenTelemetry spans", () => {
  it("a request carrying traceparent yields a span with that parent and the MCP attributes, and the handler runs inside it with the baggage", T, async () => {
    const { server, seen } = tracedServer();
    const peer = await Peer.connect(server, "test");
    const response = await peer.request("tools/call", {
      name: "greet",
      arguments: {},
      ...withTrace({ traceparent: TRACEPARENT, tracestate: "rojo=00f067aa0ba902b7", baggage: "user=alice%20b,region=eu" }),
    });
    assert.equal(response.result.content[0].text, "hello");
    const span = finished("tools/call greet");
    assert.equal(span.kind, SpanKind.SERVER);
    assert.equal(span.spanContext().traceId, TRACE_ID);
    assert.equal(span.parentSpanContext?.spanId, PARENT_SPAN_ID);
    assert.equal(span.parentSpanContext?.isRemote, true);
    assert.equal(span.parentSpanContext?.traceState?.get("rojo"), "00f067aa0ba902b7");
    assert.deepEqual(span.attributes, {
      "mcp.method.name": "tools/call",
      "jsonrpc.request.id": String(response.id),
      "mcp.protocol.version": REQUEST_META["io.modelcontextprotocol/protocolVersion"],
      "gen_ai.tool.name": "greet",
      "gen_ai.operation.name": "execute_tool",
    });
    assert.equal(span.status.code, SpanStatusCode.UNSET);
    assert.equal(seen.spanId, span.spanContext().spanId, "the handler's active span is the request's");
    assert.equal(seen.user, "alice b", "the caller's baggage reaches the handler");
    await server.close();
  });

  it("a request without trace context starts a trace of its own; resources name their uri, prompts their name", T, async () => {
    const { server } = tracedServer();
    server.addResource({ uri: "app://notes/1", name: "note" }, () => "n");
    server.addPrompt({ name: "summarize" }, () => ({ messages: [] }));
    const peer = await Peer.connect(server, "test");
    await peer.request("resources/read", { uri: "app://notes/1" });
    await peer.request("prompts/get", { name: "summarize" });
    const read = finished("resources/read");
    assert.equal(read.parentSpanContext, undefined);
    assert.equal(read.attributes["mcp.resource.uri"], "app://notes/1");
    assert.equal(finished("prompts/get summarize").attributes["gen_ai.prompt.name"], "summarize");
    await server.close();
  });

  it("an error sets the error type: the JSON-RPC code, or tool_error for a tool result with isError", T, async () => {
    const { server } = tracedServer();
    const peer = await Peer.connect(server, "test");
    await peer.request("tools/call", { name: "refuse", arguments: {} });
    await peer.request("tools/call", { name: "crash", arguments: {} });
    await peer.request("tools/call", { name: "soft-fail", arguments: {} });
    const refused = finished("tools/call refuse");
    assert.equal(refused.attributes["error.type"], "-32602");
    assert.equal(refused.attributes["rpc.response.status_code"], "-32602");
    assert.deepEqual(refused.status, { code: SpanStatusCode.ERROR, message: "no such city" });
    // A tool that throws answers with isError (the tool failed, not the call); a request handler that throws, with -32603.
    assert.equal(finished("tools/call crash").attributes["error.type"], "tool_error");
    server.setRequestHandler("completion/complete", () => {
      throw new Error("boom");
    });
    await peer.request("completion/complete", { ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } });
    assert.equal(finished("completion/complete").attributes["error.type"], "-32603");
    const soft = finished("tools/call soft-fail");
    assert.equal(soft.attributes["error.type"], "tool_error");
    assert.equal(soft.status.code, SpanStatusCode.ERROR);
    assert.equal(soft.attributes["rpc.response.status_code"], undefined, "a result with isError carries no JSON-RPC code");
    await server.close();
  });

  it("a listen stream yields its span, open until the stream ends, parented on its traceparent", T, async () => {
    const server = createServer({ name: "traced", version: "1.0.0" }).addSubscriptionHandler(toolsHandler);
    const peer = await Peer.connect(server, "test");
    const id = peer.send("subscriptions/listen", { notifications: { toolsListChanged: true }, ...withTrace({ traceparent: TRACEPARENT }) });
    await peer.waitFor((m) => m.method === "notifications/subscriptions/acknowledged", "the ack");
    await peer.sync();
    assert.equal(
      exporter.getFinishedSpans().find((span) => span.name === "subscriptions/listen"),
      undefined,
      "the stream's span is still open",
    );
    peer.notify("notifications/cancelled", { requestId: id });
    await until(() => exporter.getFinishedSpans().some((span) => span.name === "subscriptions/listen"), "the stream's span ends");
    const span = finished("subscriptions/listen");
    assert.equal(span.parentSpanContext?.spanId, PARENT_SPAN_ID);
    assert.equal(span.attributes["mcp.method.name"], "subscriptions/listen");
    assert.equal(span.attributes["jsonrpc.request.id"], String(id));
    assert.equal(span.attributes["error.type"], undefined);
    assert.deepEqual(
      span.events.map((event) => event.name),
      ["cancelled"],
    );
    await server.close();
  });

  it("a refused listen stream's span carries the refusal's error type", T, async () => {
    const server = createServer({ name: "traced", version: "1.0.0" }).addSubscriptionHandler(toolsHandler);
    const peer = await Peer.connect(server, "test");
    const refused = await peer.request("subscriptions/listen", { notifications: { promptsListChanged: true } });
    assert.equal(refused.error.code, -32602);
    const malformed = await peer.request("subscriptions/listen", { notifications: { toolsListChanged: "yes" } });
    assert.equal(malformed.error.code, -32602);
    const spans = exporter.getFinishedSpans().filter((span) => span.name === "subscriptions/listen");
    assert.deepEqual(
      spans.map((span) => [span.attributes["jsonrpc.request.id"], span.attributes["error.type"], span.status.code]),
      [
        [String(refused.id), "-32602", SpanStatusCode.ERROR],
        [String(malformed.id), "-32602", SpanStatusCode.ERROR],
      ],
    );
    await server.close();
  });

  it("the configured propagator is the one that reads _meta", T, async () => {
    // A propagator of the test's own making, reading a key no W3C parser knows.
    const custom: TextMapPropagator = {
      fields: () => ["x-parent"],
      inject: () => undefined,
      extract: (ctx, carrier, getter) => {
        const spanId = getter.get(carrier, "x-parent");
        if (typeof spanId !== "string") return ctx;
        return trace.setSpanContext(ctx, { traceId: TRACE_ID, spanId, traceFlags: 1, isRemote: true });
      },
    };
    propagation.setGlobalPropagator(custom);
    try {
      const { server } = tracedServer();
      const peer = await Peer.connect(server, "test");
      await peer.request("tools/call", { name: "greet", arguments: {}, ...withTrace({ "x-parent": "1111111111111111", traceparent: TRACEPARENT }) });
      assert.equal(finished("tools/call greet").parentSpanContext?.spanId, "1111111111111111");
      await server.close();
    } finally {
      propagation.disable();
    }
  });

  it("a legacy HTTP session's span names its session id and negotiated version (the 1.x SDK client)", T, async () => {
    const { server } = tracedServer();
    const handle = await serveHttp(server, { port: 0, host: "127.0.0.1" });
    const transport = new StreamableHTTPClientTransport(new URL(handle.url));
    const client = new Client({ name: "tracing-test", version: "1.0.0" });
    try {
      await client.connect(transport);
      await client.callTool({ name: "greet", arguments: {}, _meta: { traceparent: TRACEPARENT } });
      const span = finished("tools/call greet");
      assert.equal(span.parentSpanContext?.spanId, PARENT_SPAN_ID);
      assert.equal(span.attributes["mcp.session.id"], transport.sessionId);
      assert.equal(span.attributes["mcp.protocol.version"], transport.protocolVersion);
    } finally {
      await client.close();
      await handle.close();
      await server.close();
    }
  });

  it("tracing: false records no span", T, async () => {
    const { server } = tracedServer({ tracing: false });
    const peer = await Peer.connect(server, "test");
    await peer.request("tools/call", { name: "greet", arguments: {}, ...withTrace({ traceparent: TRACEPARENT }) });
    assert.deepEqual(exporter.getFinishedSpans(), []);
    await server.close();
  });
});

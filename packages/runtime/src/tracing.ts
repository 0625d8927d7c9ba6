/**
 * OpenTelemetry spans, one per request and one per listen stream, named and attributed
 * after the semantic conventions for MCP (`mcp.method.name`, `gen_ai.tool.name`,
 * `mcp.session.id`, `mcp.protocol.version`, `error.type`, ...), each parented on the
 * trace context the client put in `_meta` (`traceparent`, `tracestate`, `baggage`).
 *
 * `@opentelemetry/api` is an optional peer dependency: it is loaded here, when the first
 * server is created with tracing on, and when it is not installed tracing is off
 * (`openTracing` returns undefined, so the core pays one check per request). Nothing
 * imports it by name, so neither TypeScript nor a bundler insists on the package; the few
 * API members used are typed below instead.
 */
import { isObject, type JsonObject, type JsonRpcRequest, type JsonRpcResponse } from "./jsonrpc.js";
import { META_KEYS, type ClientRequestMethod } from "./protocol.js";
import { refusalError } from "./retryable.js";

/** The parts of `@opentelemetry/api` this module uses. */
interface OtelSpan {
  setAttribute(key: string, value: string): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  addEvent(name: string): unknown;
  isRecording(): boolean;
  end(): void;
}
interface OtelSpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
  traceState?: unknown;
}
type OtelContext = object;
interface OtelApi {
  trace: {
    getTracer(name: string): { startSpan(name: string, options: object, context: OtelContext): OtelSpan };
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
    setSpanContext(context: OtelContext, spanContext: OtelSpanContext): OtelContext;
    getSpanContext(context: OtelContext): OtelSpanContext | undefined;
    isSpanContextValid(spanContext: OtelSpanContext): boolean;
  };
  context: { active(): OtelContext; with<T>(context: OtelContext, fn: () => T): T };
  propagation: {
    fields(): string[];
    extract(context: OtelContext, carrier: unknown, getter: object): OtelContext;
    createBaggage(entries: Record<string, { value: string }>): unknown;
    setBaggage(context: OtelContext, baggage: unknown): OtelContext;
  };
  createTraceState?(raw: string): unknown;
  SpanKind: { SERVER: number };
  SpanStatusCode: { ERROR: number };
}

const API_MODULE = "@opentelemetry/api";

/** The few members of Node's `module` builtin and `process` used to load the API. */
type Require = (id: string) => unknown;
interface ProcessLike {
  argv?: readonly string[];
  cwd?(): string;
  getBuiltinModule?(id: "module"): { createRequire(from: string): Require } | undefined;
}

let api: OtelApi | null | undefined;

/**
 * `@opentelemetry/api`, required once and synchronously (a server traces its first
 * request): through `process.getBuiltinModule`, so no `node:` import is written here and a
 * runtime without it (a worker) simply traces nothing. It is resolved from the main
 * script, then from the working directory (this file may be compiled to CommonJS, which has
 * no `import.meta`). Its CommonJS and ES builds share the registered providers through a
 * global, so either is the one the application set up.
 */
function loadApi(): OtelApi | undefined {
  if (api !== undefined) return api ?? undefined;
  api = null;
  const process = (globalThis as { process?: ProcessLike }).process;
  const builtin = process?.getBuiltinModule?.("module");
  const bases = [process?.argv?.[1], process?.cwd === undefined ? undefined : `${process.cwd()}/`];
  for (const base of bases) {
    if (builtin === undefined || base === undefined) continue;
    try {
      const loaded = builtin.createRequire(base)(API_MODULE) as OtelApi | undefined;
      if (typeof loaded?.trace?.getTracer === "function") return (api = loaded);
    } catch {
      // Not installed there: the next base, else tracing stays off.
    }
  }
  return undefined;
}

const TRACER_NAME = "mcp-gen";
/** The methods whose span is named after their target (pinned: a renamed method fails to compile). */
const TOOLS_CALL = "tools/call" satisfies ClientRequestMethod;
const PROMPTS_GET = "prompts/get" satisfies ClientRequestMethod;
const PROTOCOL_VERSION_KEY: string = META_KEYS.protocolVersion;
/** A handler that threw: the client got -32603, the span says why in its own words. */
const STREAM_ERROR_TYPES: Readonly<Record<string, string>> = { failed: "handler_error", overflow: "overflow", evicted: "evicted" };

/** Reads `_meta` as a propagation carrier: its string values by key. */
const META_GETTER = {
  keys: (carrier: JsonObject) => Object.keys(carrier),
  get: (carrier: JsonObject, key: string) => (typeof carrier[key] === "string" ? carrier[key] : undefined),
};

/** One span: the work it covers runs inside `run`, and one of the `end`s closes it. */
export interface TraceSpan {
  run<T>(fn: () => T): T;
  /** A request's span: its response decides the error type (none for a cancelled request). */
  endWith(response: JsonRpcResponse | undefined): void;
  /** A listen stream's span: how the stream ended (`Teardown["why"]`, and a refusal's error). */
  endStream(why: string, refusal?: unknown): void;
}

/** What a span is told about the request beyond its JSON-RPC body. */
export interface TraceFacts {
  /** The `Mcp-Session-Id` of a legacy HTTP session. */
  sessionId?: string | undefined;
  /** The version a session negotiated (a modern request names its own in `_meta`). */
  protocolVersion?: string | undefined;
}

export class Tracing {
  readonly #api: OtelApi;

  constructor(api: OtelApi) {
    this.#api = api;
  }

  /** Starts the span of one request (or listen stream), parented on the caller's `_meta` trace context. */
  start(request: JsonRpcRequest, facts: TraceFacts): TraceSpan {
    const api = this.#api;
    const params = request.params ?? {};
    const clientMeta = isObject(params["_meta"]) ? (params["_meta"] as JsonObject) : {};
    // The conventions: parent on the `_meta` context and link the ambient one (an HTTP
    // server span, say); without a caller context in `_meta` the ambient one is the parent.
    const ambient = api.context.active();
    const parent = extractContext(api, clientMeta, ambient);
    const { name, attributes } = spanFacts(request, clientMeta, facts);
    const ambientSpan = api.trace.getSpanContext(ambient);
    const linked = ambientSpan !== undefined && api.trace.isSpanContextValid(ambientSpan) && api.trace.getSpanContext(parent) !== ambientSpan;
    const links = linked ? [{ context: ambientSpan }] : [];
    const span = api.trace.getTracer(TRACER_NAME).startSpan(name, { kind: api.SpanKind.SERVER, attributes, links }, parent);
    return new RecordingSpan(api, span, api.trace.setSpan(parent, span));
  }
}

/** The tracing the server uses: undefined when `@opentelemetry/api` is absent or tracing is turned off. */
export function openTracing(enabled: boolean): Tracing | undefined {
  const loaded = enabled ? loadApi() : undefined;
  return loaded === undefined ? undefined : new Tracing(loaded);
}

class RecordingSpan implements TraceSpan {
  constructor(
    readonly api: OtelApi,
    readonly span: OtelSpan,
    readonly context: OtelContext,
  ) {}

  run<T>(fn: () => T): T {
    return this.api.context.with(this.context, fn);
  }

  endWith(response: JsonRpcResponse | undefined): void {
    if (response === undefined) this.span.addEvent("cancelled");
    else if ("error" in response) this.#fail(String(response.error.code), response.error.message, true);
    else if (isObject(response.result) && response.result["isError"] === true) this.#fail("tool_error", undefined, false);
    this.span.end();
  }

  endStream(why: string, refusal?: unknown): void {
    if (why === "rejected") {
      const error = refusalError(refusal);
      this.#fail(String(error.code), error.message, true);
    } else if (STREAM_ERROR_TYPES[why] !== undefined) this.#fail(STREAM_ERROR_TYPES[why], undefined, false);
    else if (why === "cancelled") this.span.addEvent("cancelled");
    this.span.end();
  }

  #fail(errorType: string, message: string | undefined, jsonRpc: boolean): void {
    this.span.setAttribute("error.type", errorType);
    if (jsonRpc) this.span.setAttribute("rpc.response.status_code", errorType);
    this.span.setStatus(message === undefined ? { code: this.api.SpanStatusCode.ERROR } : { code: this.api.SpanStatusCode.ERROR, message });
  }
}

/**
 * The caller's context from `_meta`, through the configured propagators; when none is
 * configured (`fields()` is empty, the API's no-op), W3C Trace Context and Baggage are read
 * here, so a server with only a tracer provider still joins its callers' traces.
 */
function extractContext(api: OtelApi, meta: JsonObject, ambient: OtelContext): OtelContext {
  if (api.propagation.fields().length > 0) return api.propagation.extract(ambient, meta, META_GETTER);
  let context = ambient;
  const spanContext = parseTraceparent(meta["traceparent"]);
  if (spanContext !== undefined) {
    const traceState = typeof meta["tracestate"] === "string" ? api.createTraceState?.(meta["tracestate"]) : undefined;
    context = api.trace.setSpanContext(context, traceState === undefined ? spanContext : { ...spanContext, traceState });
  }
  const baggage = parseBaggage(meta["baggage"]);
  if (baggage !== undefined) context = api.propagation.setBaggage(context, api.propagation.createBaggage(baggage));
  return context;
}

/** `version-traceid-parentid-flags` (W3C Trace Context); all-zero ids and version ff are invalid. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-|$)/;

function parseTraceparent(value: unknown): OtelSpanContext | undefined {
  const match = typeof value === "string" ? TRACEPARENT.exec(value.trim()) : null;
  if (match === null || match[1] === "ff" || (match[1] === "00" && match[5] === "-")) return undefined;
  const [traceId, spanId] = [match[2]!, match[3]!];
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: parseInt(match[4]!, 16) & 1, isRemote: true };
}

/** `key=value;property,key2=value2` (W3C Baggage), values percent-decoded; properties are not kept. */
function parseBaggage(value: unknown): Record<string, { value: string }> | undefined {
  if (typeof value !== "string" || value.length > 8192) return undefined;
  const entries: Record<string, { value: string }> = {};
  for (const member of value.split(",")) {
    const [pair = ""] = member.split(";");
    const equals = pair.indexOf("=");
    if (equals <= 0) continue;
    try {
      entries[pair.slice(0, equals).trim()] = { value: decodeURIComponent(pair.slice(equals + 1).trim()) };
    } catch {
      // A malformed percent-escape drops that one entry, as the W3C text allows.
    }
  }
  return Object.keys(entries).length > 0 ? entries : undefined;
}

/** The span name (`{mcp.method.name} {target}`) and the attributes known at the start. */
function spanFacts(request: JsonRpcRequest, meta: JsonObject, facts: TraceFacts): { name: string; attributes: Record<string, string> } {
  const { method } = request;
  const params = request.params ?? {};
  const attributes: Record<string, string> = { "mcp.method.name": method, "jsonrpc.request.id": String(request.id) };
  const version = facts.protocolVersion ?? meta[PROTOCOL_VERSION_KEY];
  if (typeof version === "string") attributes["mcp.protocol.version"] = version;
  if (facts.sessionId !== undefined) attributes["mcp.session.id"] = facts.sessionId;
  if (typeof params["uri"] === "string" && method.startsWith("resources/")) attributes["mcp.resource.uri"] = params["uri"];
  const target = typeof params["name"] === "string" ? params["name"] : undefined;
  if (target !== undefined && method === TOOLS_CALL) {
    attributes["gen_ai.tool.name"] = target;
    attributes["gen_ai.operation.name"] = "execute_tool";
  } else if (target !== undefined && method === PROMPTS_GET) attributes["gen_ai.prompt.name"] = target;
  else return { name: method, attributes };
  return { name: `${method} ${target}`, attributes };
}

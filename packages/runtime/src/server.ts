/**
 * The server core: request handlers per method (typed from the generated ClientRequests
 * map), `server/discover`, subscription handlers, and the transports it serves. Clients of
 * an older era are served by the era it is given (era.ts): the main entry's `createServer`
 * (create-server.ts) gives the initialize era, this module's `createServer` none.
 */
import { META_KEYS, PROTOCOL_VERSION, type Implementation, type Resource, type ServerCapabilities } from "./protocol.js";
import { Connection, DISCOVER_METHOD, LISTEN_METHOD, type ConnectionHost, type RequestContext } from "./connection.js";
import { foldCapabilities } from "./discover.js";
import type { EventHook } from "./hooks.js";
import { errorResponse, INTERNAL_ERROR, isObject, McpError, type JsonObject, type JsonRpcRequest, type JsonRpcResponse } from "./jsonrpc.js";
import { modernOnly, type Era, type EraFactory, type EraSession } from "./era.js";
import { StreamSlots } from "./subscriptions/slots.js";
import type { HandlerEntry } from "./subscriptions/stream.js";
import type { Awaitable, Channel, SendResult, SubscriptionHandler } from "./subscriptions/types.js";
import { ToolRegistry, TOOLS_CALL, TOOLS_LIST, type ToolOptions } from "./tools.js";
import type { ToolArguments, ToolDefinition, ToolInputSchema, ToolOutputSchema, ToolRunner, ToolStructured } from "./tool-schemas.js";
import type { StandardSchema } from "./schema.js";
import { scopeUnion } from "./scopes.js";
import { Primitives, type PrimitivesSettings } from "./primitives/index.js";
import { RequestStateSealer } from "./input-required.js";
import type { PromptDefinition, PromptGetter, PromptOptions } from "./primitives/prompts.js";
import type { ResourceOptions, ResourceReader, TemplateDefinition, TemplateOptions, TemplateReader } from "./primitives/resources.js";
import { SENT, type Transport } from "./transport.js";
import type { ParamHeader } from "./transports/param-headers.js";
import { TaskService } from "./tasks/service.js";
import { openTracing } from "./tracing.js";
import { isRetryable, retryMessage } from "./retryable.js";
import {
  DEFAULT_MAX_LISTEN_REQUEST_BYTES,
  DEFAULT_MAX_STREAMS_PER_CLIENT,
  DEFAULT_MAX_TOTAL_LISTEN_BYTES,
  type CloseOptions,
  type HandledMethod,
  type RequestHandler,
  type CoreServerOptions,
} from "./server-options.js";
import { TASKS_AVAILABLE, TASKS_EXTENSION, taskMethod } from "./tasks/shapes.js";
import { MiddlewareChain, type AnyMethodMiddleware, type Middleware, type MiddlewareMethod } from "./middleware.js";
import { inputChain, type AnyInputMiddleware, type InputMiddleware } from "./input-middleware.js";
import type { InputMethod } from "./input-required.js";
import type { Viewer } from "./visibility.js";

/** Absent from schemas whose results carry no server info; then nothing is added. */
const SERVER_INFO_KEY: string | undefined = (META_KEYS as Readonly<Record<string, string | undefined>>)["serverInfo"];

type AnyHandler = (params: any, context: RequestContext) => Awaitable<object>;

export class Server<E extends Era = Era> {
  readonly #options: CoreServerOptions;
  readonly #info: Implementation;
  readonly #handlers = new Map<string, AnyHandler>();
  /** Methods the runtime serves itself (the tasks verbs): they fold no capability, not even logging. */
  readonly #ownMethods = new Set<string>();
  readonly #subscriptionHandlers: HandlerEntry[] = [];
  readonly #middleware = new MiddlewareChain();
  readonly #inputMiddleware = inputChain();
  readonly #connections = new Set<Connection>();
  readonly #tasks: TaskService;
  #stateSealer: RequestStateSealer | undefined;
  /** One sealer of input-required state for tools, prompts and resources, so that a seal opens once whatever it was for. */
  readonly #sealer = (): RequestStateSealer =>
    (this.#stateSealer ??= new RequestStateSealer(this.#options.stateKey, this.#options.limits?.maxUsedRequestStates));
  readonly #tools = new ToolRegistry(() => ({ ...this.#options, tasks: this.#tasks, sealer: this.#sealer }));
  #primitiveSettings: PrimitivesSettings | undefined;
  readonly #primitives = new Primitives(
    (method, handler) => void (this.#handlers.has(method) || this.#handlers.set(method, handler)),
    () => (this.#primitiveSettings ??= { ...this.#options, sealer: this.#sealer }),
  );
  readonly #host: ConnectionHost;
  readonly #era: E;
  #closed = false;
  #closing: Promise<void> | undefined;

  /** `era`: how clients of an older era are served; by default they are not (`modernOnly`: `initialize` is refused naming the versions served). */
  constructor(options: CoreServerOptions, era: EraFactory<E> = modernOnly as EraFactory<E>) {
    if (typeof options?.name !== "string" || typeof options.version !== "string") {
      throw new TypeError("createServer: options.name and options.version are required strings");
    }
    this.#options = options;
    this.#info =
      options.title === undefined ? { name: options.name, version: options.version } : { name: options.name, version: options.version, title: options.title };
    this.#host = this.#makeHost(era);
    this.#era = this.#host.era as E;
    this.#tasks = new TaskService(options.tasks);
    if (TASKS_AVAILABLE) this.#serveTasks();
  }

  /** tasks/get, tasks/update, tasks/cancel and the taskIds listen kind, from the generated facts. */
  #serveTasks(): void {
    for (const verb of ["get", "update", "cancel"] as const) {
      const method = taskMethod(verb);
      if (method === undefined) continue;
      this.#handlers.set(method, this.#tasks.handler(verb) as AnyHandler);
      this.#ownMethods.add(method);
    }
    this.#subscriptionHandlers.push({ handler: this.#tasks.subscriptionHandler(), arg: undefined });
  }

  /** Registers the handler for one request method (replacing any earlier one). */
  setRequestHandler<M extends HandledMethod>(method: M, handler: RequestHandler<M>): this {
    if (method === (DISCOVER_METHOD as string) || method === (LISTEN_METHOD as string)) {
      throw new TypeError(`${method} is answered by the runtime; use addSubscriptionHandler or createServer options`);
    }
    this.#handlers.set(method, handler as AnyHandler);
    this.#ownMethods.delete(method);
    return this;
  }

  /**
   * Adds a middleware around every request a handler answers (`use(middleware)`), or around
   * one method's (`use(method, middleware)`, typed from that method's params and result), in
   * both eras; the first added runs outermost. See middleware.ts.
   */
  use(middleware: AnyMethodMiddleware): this;
  // NoInfer: the method alone fixes M, so a middleware's literals are checked against that method's result.
  use<M extends MiddlewareMethod>(method: M, middleware: NoInfer<Middleware<M>>): this;
  use(first: unknown, second?: unknown): this {
    if (typeof first === "string") this.#middleware.add(first, second);
    else this.#middleware.add(undefined, first);
    return this;
  }

  /**
   * Adds a middleware around every request `input.ask` makes the server send its client
   * (`useInput(middleware)`), or around one kind's (`useInput(method, middleware)`, typed from
   * its params and the client's result). Runs where such a request is sent: an
   * initialize-era session. See input-middleware.ts.
   */
  useInput(middleware: AnyInputMiddleware): this;
  useInput<M extends InputMethod>(method: M, middleware: NoInfer<InputMiddleware<M>>): this;
  useInput(first: unknown, second?: unknown): this {
    if (typeof first === "string") this.#inputMiddleware.add(first, second);
    else this.#inputMiddleware.add(undefined, first);
    return this;
  }

  /**
   * Adds (or replaces) a tool served by the built-in tools/list and tools/call. Each schema is
   * a JSON Schema literal or a Standard Schema (zod, valibot, ...): `run` gets the arguments
   * typed from `inputSchema`, and must answer structured content of `outputSchema`'s type.
   * `options.scopes`: the OAuth scopes a call needs (see auth/).
   */
  addTool<const I extends ToolInputSchema, const O extends ToolOutputSchema | undefined = undefined>(
    tool: ToolDefinition<I, O>,
    run: ToolRunner<ToolArguments<I>, ToolStructured<O>>,
    options?: ToolOptions,
  ): this {
    this.#tools.add(tool, run, options);
    if (!this.#handlers.has(TOOLS_LIST))
      this.#handlers.set(TOOLS_LIST, (params, context) => this.#tools.list(params?.cursor, this.#options.lists?.tools, context.meta));
    if (!this.#handlers.has(TOOLS_CALL)) this.#handlers.set(TOOLS_CALL, (params, context) => this.#tools.call(params ?? {}, context));
    return this;
  }

  /** Removes a tool; true when it existed. Clients learn of it from a handler's event, not from here. */
  removeTool(name: string): boolean {
    return this.#tools.remove(name);
  }

  /** Adds (or replaces) a static resource served by resources/list and resources/read. */
  addResource(resource: Resource, read: ResourceReader, options?: ResourceOptions): this {
    return (this.#primitives.addResource(resource, read, options), this);
  }

  /** Adds a resource template; `read` gets the variables typed from the `uriTemplate` literal, or the output of its `variables` schema. */
  addResourceTemplate<const T extends string, V extends StandardSchema | undefined = undefined>(
    template: TemplateDefinition<T, V>,
    read: TemplateReader<T, V>,
    options?: TemplateOptions<T>,
  ): this {
    return (this.#primitives.addResourceTemplate(template, read, options), this);
  }

  /** Adds a prompt; `get` gets the declared arguments typed (required ones checked before it runs). */
  addPrompt<const P extends PromptDefinition>(prompt: P, get: PromptGetter<P>, options?: PromptOptions<P>): this {
    return (this.#primitives.addPrompt(prompt, get, options), this);
  }

  /** Removes a resource (by URI) or template (by uriTemplate), or a prompt; true when it existed. */
  removeResource(uriOrTemplate: string): boolean {
    return this.#primitives.removeResource(uriOrTemplate);
  }
  removePrompt(name: string): boolean {
    return this.#primitives.removePrompt(name);
  }

  /** A tool's `x-mcp-header` parameters: the HTTP transport checks `Mcp-Param-*` headers against them. */
  toolParamHeaders(name: string): readonly ParamHeader[] | undefined {
    return this.#tools.paramHeaders(name);
  }

  /**
   * The OAuth scopes a request needs before it is served: what the tool, prompt or resource
   * it names declares (`options.scopes`), also when the request completes, subscribes to or
   * listens for it; none for any other method. `meta` decides which registration a URI
   * resolves to (a legacy session passes its own); by default the params' `_meta`. The
   * HTTP transport asks, with OAuth configured (auth/). `viewer`: the caller the transport
   * vouched for; what is hidden from it (`visibility`) needs no scope, since it is answered
   * as what does not exist. Without a viewer, every declaration counts.
   */
  requiredScopes(
    method: string,
    params: Readonly<Record<string, unknown>> | undefined,
    meta: Readonly<Record<string, unknown>> | undefined = isObject(params?.["_meta"]) ? params["_meta"] : undefined,
    viewer?: Viewer,
  ): readonly string[] {
    if (method === TOOLS_CALL) return this.#tools.scopes(params?.["name"], viewer);
    return this.#primitives.scopes(method, params, meta, viewer);
  }

  /** Every scope a registered tool, prompt or resource declares, sorted: `scopes_supported`. */
  declaredScopes(): string[] {
    return scopeUnion([this.#tools.declaredScopes(), this.#primitives.declaredScopes()]);
  }

  /** Adds a subscription handler; every registered one is folded into server/discover. */
  addSubscriptionHandler<State, Arg = unknown>(handler: SubscriptionHandler<State, Arg>, arg?: Arg): this {
    if (typeof handler?.subscribe !== "function" || typeof handler.handleMessage !== "function") {
      throw new TypeError("addSubscriptionHandler: the handler needs subscribe() and handleMessage()");
    }
    this.#subscriptionHandlers.push({ handler, arg });
    return this;
  }

  /** Serves one transport (one logical connection); resolves once it is connected. */
  async connect(transport: Transport): Promise<void> {
    return this.#connect(transport, undefined);
  }

  /** The era of older clients and its sessions (HTTP finds a session here by its `Mcp-Session-Id`). */
  get legacySessions(): E {
    return this.#era;
  }

  /** Not `async`: a transport already connected (an HTTP POST's) costs no promise of its own. */
  #connect(transport: Transport, session: EraSession | undefined): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("the server is closed; create a new one to serve again"));
    const connection = new Connection(this.#host, transport);
    connection.eraSession = session;
    this.#connections.add(connection);
    let started: Promise<void>;
    try {
      started = connection.start();
    } catch (error) {
      this.#connections.delete(connection);
      return Promise.reject(error);
    }
    if (started === SENT) return started;
    return started.catch((error: unknown) => {
      this.#connections.delete(connection);
      throw error;
    });
  }

  /**
   * Ends every open stream with its complete result (handleClose runs), gives requests still
   * running `graceMs` (default 0) to be answered, then closes the transports and the task
   * store. From the call on, `closed` is true and no transport is served. Idempotent: a later
   * call returns the first call's promise (its options are the first call's), so the shutdown
   * runs once however many owners (a signal handler, a test) ask for it.
   */
  close(options: CloseOptions = {}): Promise<void> {
    return (this.#closing ??= this.#shutdown(options));
  }

  async #shutdown(options: CloseOptions): Promise<void> {
    this.#closed = true;
    await this.#era.close();
    const graceMs = Math.max(0, options.graceMs ?? 0);
    await Promise.all([...this.#connections].map((connection) => connection.shutdown(graceMs)));
    await this.#tasks.close();
  }

  /** Whether `close()` was called: the HTTP handler answers 503 (retry elsewhere) from then on. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The capabilities server/discover advertises to a caller with this `_meta`. */
  capabilities(meta: Readonly<Record<string, unknown>> = {}): ServerCapabilities {
    const declarations = this.#subscriptionHandlers.map(({ handler, arg }) => {
      try {
        return handler.subscriptionCapabilities?.(discoveryChannel(meta), arg) ?? {};
      } catch (error) {
        this.#emit({ type: "handler-error", id: null, callback: "subscriptionCapabilities", error });
        return {};
      }
    });
    const methods = [...this.#handlers.keys()].filter((method) => !this.#ownMethods.has(method));
    const folded = foldCapabilities(methods, declarations, this.#options.capabilities, this.#options.logging !== false);
    // Extensions in use: tasks once a tool answered with one, and each extension a registered tool or resource belongs to.
    const used = new Set([...this.#tools.claimedExtensions(), ...this.#primitives.claimedExtensions()]);
    if (this.#tasks.used) used.add(TASKS_EXTENSION);
    if (used.size === 0) return folded;
    return { ...folded, extensions: { ...folded.extensions, ...Object.fromEntries([...used].map((id) => [id, {}])) } };
  }

  #discover(context: RequestContext): JsonObject {
    const { ttlMs = 0, cacheScope = "private" } = this.#options.discover ?? {};
    const result: JsonObject = {
      supportedVersions: [...this.#supportedVersions()],
      capabilities: this.capabilities(context.meta),
      cacheScope,
      ttlMs,
    };
    if (this.#options.instructions !== undefined) result["instructions"] = this.#options.instructions;
    return result;
  }

  #supportedVersions(): readonly string[] {
    return this.#options.supportedVersions ?? [PROTOCOL_VERSION];
  }

  #emit: EventHook = (event) => {
    try {
      this.#options.onEvent?.(event);
    } catch {
      // A failing observer must not disturb the server.
    }
  };

  #finishResult(result: JsonObject): JsonObject {
    const finished: JsonObject = { ...result, resultType: typeof result["resultType"] === "string" ? result["resultType"] : "complete" };
    if (SERVER_INFO_KEY !== undefined) {
      finished["_meta"] = { ...(isObject(result["_meta"]) ? result["_meta"] : {}), [SERVER_INFO_KEY]: this.#info };
    }
    return finished;
  }

  async #dispatch(request: JsonRpcRequest, context: RequestContext, asReturned = false): Promise<JsonRpcResponse> {
    try {
      const handler = request.method === DISCOVER_METHOD ? () => this.#discover(context) : this.#handlers.get(request.method)!;
      const params = request.params ?? {};
      const result = await (this.#middleware.empty ? handler(params, context) : this.#middleware.run(request.method, params, context, handler));
      if (!isObject(result) || Array.isArray(result)) throw new TypeError(`the ${request.method} handler returned no result object`);
      return { jsonrpc: "2.0", id: request.id, result: asReturned ? (result as JsonObject) : this.#finishResult(result as JsonObject) };
    } catch (error) {
      if (error instanceof McpError) return errorResponse(request.id, error.code, error.message, error.data);
      this.#emit({ type: "handler-error", id: request.id, callback: request.method, error });
      // A store or broker away for now: the client may retry, here or on another process.
      if (isRetryable(error)) return errorResponse(request.id, INTERNAL_ERROR, retryMessage(request.method));
      return errorResponse(request.id, INTERNAL_ERROR, `Internal error while handling ${request.method}`);
    }
  }

  #makeHost(makeEra: EraFactory<E>): ConnectionHost {
    const limits = this.#options.limits ?? {};
    const host: Omit<ConnectionHost, "era"> = {
      emit: this.#emit,
      onSendError: (error) => this.#emit({ type: "transport-error", error }),
      mailboxSize: Math.max(1, limits.mailboxSize ?? 1000),
      maxListenRequestBytes: Math.max(0, limits.maxListenRequestBytes ?? DEFAULT_MAX_LISTEN_REQUEST_BYTES),
      slots: new StreamSlots({
        max: limits.maxStreams ?? 10_000,
        maxPerClient: limits.maxStreamsPerClient ?? DEFAULT_MAX_STREAMS_PER_CLIENT,
        headroom: limits.streamHeadroom,
        maxBytes: limits.maxTotalListenBytes ?? DEFAULT_MAX_TOTAL_LISTEN_BYTES,
      }),
      supportedVersions: this.#supportedVersions(),
      subscriptionHandlers: this.#subscriptionHandlers,
      finishResult: (result) => this.#finishResult(result),
      hasMethod: (method) => method === DISCOVER_METHOD || this.#handlers.has(method),
      dispatch: (request, context, asReturned) => this.#dispatch(request, context, asReturned),
      askClient: (method, params, context, send) =>
        this.#inputMiddleware.empty ? send(params) : (this.#inputMiddleware.run(method, params, context, send) as Promise<JsonObject>),
      forget: (connection) => void this.#connections.delete(connection),
      tracing: openTracing(this.#options.tracing !== false),
    };
    const era = makeEra({
      ...host,
      info: this.#info,
      instructions: this.#options.instructions,
      modernVersions: host.supportedVersions,
      capabilities: (meta) => this.capabilities(meta),
      // A session's implicit streams count against its client's share, with that client's listen streams and other sessions.
      reserveStream: (session) => host.slots.reserve(session.client),
      releaseStream: (session) => host.slots.release(session.client),
      connect: (transport, session) => this.#connect(transport, session),
    });
    return { ...host, era };
  }
}

/** A server of the core's revision alone: an older client's `initialize` is refused naming the versions it speaks (the no-era entry, modern.ts). */
export function createServer(options: CoreServerOptions): Server {
  return new Server(options, modernOnly);
}

const REFUSED: SendResult = Object.freeze({ ok: false, reason: "closed" });

/** The channel subscriptionCapabilities sees while server/discover is built: meta only. */
function discoveryChannel(meta: Readonly<Record<string, unknown>>): Channel {
  return { requestId: DISCOVER_METHOD, meta, honored: {}, closed: true, sendNotification: () => REFUSED, post: () => false };
}

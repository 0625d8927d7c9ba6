/**
 * A typed MCP client over any runtime transport: method names, params and results come from
 * the generated `ClientRequests` map, notifications from `ServerNotifications`, and an error
 * answer rejects with an `McpError` carrying its code. `connectClient` (connect.ts) opens it
 * and negotiates the era the way the server side tells them apart (negotiate.ts): a
 * 2026-07-28 session sends the per-request `_meta` on every request and answers
 * `input_required` results by retrying with the answers; a 2025-11-25 session negotiated
 * its version once in `initialize` and answers the server's own requests (elicitation,
 * sampling, roots, ping) with the same handlers.
 *
 * Everything the server sends is bounded: each request by `timeoutMs` (then
 * `notifications/cancelled` is sent), each message by the transport's byte or line limit,
 * the rounds of one request by MAX_INPUT_ROUNDS, and a listing of every page by its pages
 * and items (pages.ts).
 */
import { McpError, type JsonRpcMessage, type JsonRpcResponse, type RequestId } from "../jsonrpc.js";
import { MAX_INPUT_ROUNDS } from "../legacy/input-rounds.js";
import {
  ERROR_CODES,
  META_KEYS,
  PROTOCOL_VERSION,
  type ClientCapabilities,
  type ClientNotificationMethod,
  type ClientNotifications,
  type ClientRequestMethod,
  type ClientRequests,
  type Implementation,
  type InputRequests,
  type ServerCapabilities,
  type ServerNotificationMethod,
  type ServerNotifications,
  type Tool,
} from "../protocol.js";
import type { Transport, TransportEvent } from "../transport.js";
import { HttpErrorAnswer, httpStatusOf } from "../transports/http-client.js";
import { answerInput, capabilitiesOf, type InputHandlers } from "./input.js";
import { listBounds, readAllPages, type ListBounds } from "./pages.js";
import { bindTools, ToolDirectory, type ToolBinding, type ToolCallResult, type ToolHeaderTable, type ToolMap } from "./tools.js";

/** A request's params without the `_meta` the client adds (which may still be extended). */
export type ClientParams<M extends ClientRequestMethod> = Omit<ClientRequests[M]["params"], "_meta"> & { _meta?: Record<string, unknown> };
export type ClientResult<M extends ClientRequestMethod> = ClientRequests[M]["result"];
/** Params may be left out for methods whose params have no required field. */
export type ClientParamsArgs<M extends ClientRequestMethod> = {} extends ClientParams<M> ? [params?: ClientParams<M>] : [params: ClientParams<M>];
/** Any error code the schema names (`ERROR_CODES`); an `McpError`'s `code` is one of these or another number. */
export type KnownErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

export interface ClientOptions<Tools extends ToolMap = {}> extends ListBounds {
  /** A generated client file's tools: their names (for `client.tools`) and header parameters. */
  readonly tools?: { readonly names: readonly (keyof Tools & string)[]; readonly headers: ToolHeaderTable };
  /** Sent as `clientInfo`; default `{ name: "mcp-gen-client", version: "0.1.0" }`. */
  readonly clientInfo?: Implementation;
  /** Declared on top of what the input handlers imply (`elicitation`, `sampling`, `roots`). */
  readonly capabilities?: ClientCapabilities;
  /** Answer elicitation, sampling and roots requests; a request without a handler fails naming it. */
  readonly inputHandlers?: InputHandlers;
  /** How long one request may take (its input rounds included); default 60 s. */
  readonly timeoutMs?: number;
}

export type Era = "2026-07-28" | "initialize";

/** What negotiation learnt of the server. */
export interface ServerIdentity {
  readonly era: Era;
  /** The revision both speak: 2026-07-28, or the version `initialize` agreed on. */
  readonly protocolVersion: string;
  readonly serverInfo: Implementation;
  readonly capabilities: ServerCapabilities;
  readonly instructions?: string;
}

/** An answer, and the HTTP status it came with when that was not 2xx. */
type Answer = { readonly response: JsonRpcResponse; readonly httpStatus?: number | undefined };
type Pending = { resolve: (answer: Answer) => void; reject: (error: Error) => void; timer: ReturnType<typeof setTimeout> };
type NotificationListener = (notification: never) => void;

export const DEFAULT_CLIENT_INFO: Implementation = { name: "mcp-gen-client", version: "0.1.0" };
export const DEFAULT_TIMEOUT_MS = 60_000;

export class McpClient<Tools extends ToolMap = {}> {
  /** One typed function per tool of the generated file: `client.tools.weather({ city })`. */
  readonly tools: ToolBinding<Tools>;
  /** The tools' header parameters, from the generated file and every `listTools`. */
  readonly directory: ToolDirectory;
  readonly #transport: Transport;
  readonly #timeoutMs: number;
  readonly #handlers: InputHandlers;
  readonly #listBounds: Required<ListBounds>;
  readonly clientInfo: Implementation;
  readonly capabilities: ClientCapabilities;
  readonly #pending = new Map<RequestId, Pending>();
  readonly #listeners = new Map<string, Set<NotificationListener>>();
  #meta: Record<string, unknown>;
  #era: Era = "2026-07-28";
  #server: ServerIdentity | undefined;
  /** In a session opened with `initialize`: the methods its revision defines. */
  #sessionMethods: ReadonlySet<string> | undefined;
  #nextId = 1;
  #closed = false;

  constructor(transport: Transport, options: ClientOptions<Tools> = {}) {
    this.#transport = transport;
    this.directory = new ToolDirectory(options.tools?.headers);
    this.tools = bindTools<Tools>(options.tools?.names ?? [], (name, args) => this.callTool(name, args));
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#handlers = options.inputHandlers ?? {};
    this.#listBounds = listBounds(options);
    this.clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
    this.capabilities = { ...capabilitiesOf(this.#handlers), ...options.capabilities };
    this.#meta = { [META_KEYS.protocolVersion]: PROTOCOL_VERSION, [META_KEYS.clientInfo]: this.clientInfo, [META_KEYS.clientCapabilities]: this.capabilities };
    transport.subscribe?.((event) => this.#onEvent(event));
  }

  /** The transport this client speaks over (for what only it knows, such as an HTTP session id). */
  get transport(): Transport {
    return this.#transport;
  }

  /** `"2026-07-28"`: per-request `_meta`; `"initialize"`: a session negotiated once. Set by negotiation. */
  get era(): Era {
    return this.#era;
  }

  /** What negotiation learnt of the server (undefined before `connectClient` negotiated). */
  get server(): ServerIdentity | undefined {
    return this.#server;
  }

  /** Records the negotiated server; an `initialize` session sends no per-request `_meta` and only its revision's methods. */
  negotiated(server: ServerIdentity, sessionMethods?: ReadonlySet<string>): void {
    this.#server = server;
    this.#era = server.era;
    this.#sessionMethods = sessionMethods;
  }

  /**
   * Every tool the server lists (all pages, within `maxListPages` and `maxListItems`, else a
   * ListLimitError), except those whose `x-mcp-header` annotations are invalid.
   */
  async listTools(): Promise<Tool[]> {
    const tools = await readAllPages("tools/list" satisfies ClientRequestMethod, this.#listBounds, async (cursor) => {
      const page: ClientResult<"tools/list"> = await this.request("tools/list", cursor === undefined ? {} : { cursor });
      return { items: page.tools, nextCursor: page.nextCursor };
    });
    return this.directory.learn(tools);
  }

  /** Calls a tool by name; `Mcp-Param-*` headers mirror its annotated arguments over HTTP. A tool listed with invalid annotations is refused. */
  async callTool(name: string, args?: object): Promise<ToolCallResult<unknown>> {
    if (this.directory.mirrors && !this.directory.knows(name)) await this.listTools();
    const refusal = this.directory.refusal(name);
    if (refusal !== undefined) throw new McpError(ERROR_CODES.InvalidParamsError, `tool ${name} is not callable: ${refusal}`);
    const params = args === undefined ? { name } : { name, arguments: args as Record<string, unknown> };
    return this.request("tools/call", params);
  }

  /** Sends a request; resolves with its result (after any input rounds), rejects with an `McpError` for an error answer. */
  async request<M extends ClientRequestMethod>(method: M, ...[params]: ClientParamsArgs<M>): Promise<ClientResult<M>> {
    const deadline = Date.now() + this.#timeoutMs;
    let sent: Record<string, unknown> = { ...(params as object | undefined) };
    for (let round = 0; ; round++) {
      const result = (await this.exchange(method, sent, deadline)) as Record<string, unknown>;
      if (result["resultType"] !== "input_required") return result as unknown as ClientResult<M>;
      if (round + 1 >= MAX_INPUT_ROUNDS) throw new McpError(ERROR_CODES.InternalError, `${method}: the server asked for input ${MAX_INPUT_ROUNDS} times`);
      sent = await this.#answerRound(method, params as object | undefined, result);
    }
  }

  /** One request and its raw result, without input rounds; `deadline` bounds the wait. */
  async exchange(method: string, params: Record<string, unknown>, deadline = Date.now() + this.#timeoutMs): Promise<unknown> {
    if (this.#closed) throw new McpError(ERROR_CODES.InternalError, "the client is closed");
    if (this.#sessionMethods !== undefined && !this.#sessionMethods.has(method)) {
      throw new McpError(ERROR_CODES.MethodNotFoundError, `${method} is not a method of ${this.#server?.protocolVersion ?? "this session"}`);
    }
    const id = this.#nextId++;
    const message: JsonRpcMessage = { jsonrpc: "2.0", id, method, params: this.#withMeta(params) };
    const { response, httpStatus } = await new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => this.#expire(id, method), Math.max(0, deadline - Date.now()));
      this.#pending.set(id, { resolve, reject, timer });
      this.#transport.sendMessage(message).catch((error: unknown) => this.#settle(id, undefined, error instanceof Error ? error : new Error(String(error))));
    });
    if ("error" in response) {
      const { code, message: text, data } = response.error;
      throw httpStatus === undefined ? new McpError(code, text, data) : new HttpErrorAnswer(httpStatus, code, text, data);
    }
    return response.result;
  }

  /** Sends a notification, such as `notifications/cancelled`. */
  async notify<M extends ClientNotificationMethod>(method: M, params?: Omit<ClientNotifications[M]["params"], "_meta">): Promise<void> {
    const message: JsonRpcMessage = params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params: params as Record<string, unknown> };
    await this.#transport.sendMessage(message);
  }

  /** Calls `listener` with every later notification of `method`; returns the function that stops it. */
  on<M extends ServerNotificationMethod>(method: M, listener: (notification: ServerNotifications[M]) => void): () => void {
    const listeners = this.#listeners.get(method) ?? new Set<NotificationListener>();
    this.#listeners.set(method, listeners);
    listeners.add(listener as NotificationListener);
    return () => void listeners.delete(listener as NotificationListener);
  }

  /** Closes the transport (an HTTP session is ended, a spawned server is stopped); pending requests reject. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#transport.close();
    this.#failAll(new McpError(ERROR_CODES.InternalError, "the client was closed"));
  }

  #withMeta(params: Record<string, unknown>): Record<string, unknown> {
    if (this.#era === "initialize") return params;
    const own = params["_meta"] as Record<string, unknown> | undefined;
    return { ...params, _meta: own === undefined ? this.#meta : { ...this.#meta, ...own } };
  }

  /** The retry's params: the first params plus an answer to every input request and the server's state unchanged. */
  async #answerRound(method: string, params: object | undefined, result: Record<string, unknown>): Promise<Record<string, unknown>> {
    const requests = (result["inputRequests"] ?? {}) as InputRequests;
    const inputResponses: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(requests)) {
      if (request !== undefined) inputResponses[key] = await answerInput(this.#handlers, method, request.method, request.params);
    }
    const state = result["requestState"];
    return { ...params, inputResponses, ...(typeof state === "string" ? { requestState: state } : {}) };
  }

  #onEvent(event: TransportEvent): void {
    if (event.type === "closed")
      return this.#failAll(new McpError(ERROR_CODES.InternalError, `the connection closed${event.reason ? `: ${String(event.reason)}` : ""}`));
    if (event.type === "error") {
      const requestId = (event.error as { requestId?: RequestId }).requestId;
      if (requestId !== undefined) this.#settle(requestId, undefined, event.error instanceof Error ? event.error : new Error(String(event.error)));
      return;
    }
    if (event.type !== "message") return;
    const message = typeof event.message === "string" ? parse(event.message) : event.message;
    if (message === undefined) return;
    if (!("method" in message)) {
      if (message.id !== undefined && message.id !== null) this.#settle(message.id, { response: message, httpStatus: httpStatusOf(event.context) });
    } else if ("id" in message && (typeof message.id === "string" || typeof message.id === "number")) {
      void this.#answerServerRequest(message.id, message.method, message.params);
    } else {
      for (const listener of this.#listeners.get(message.method) ?? []) listener(message as never);
    }
  }

  /** A 2025-11-25 server's own request: ping, or an input request answered by its handler. */
  async #answerServerRequest(id: RequestId, method: string, params: unknown): Promise<void> {
    let reply: JsonRpcMessage;
    try {
      const result = method === "ping" ? {} : await answerInput(this.#handlers, "a server request", method, params);
      reply = { jsonrpc: "2.0", id, result: result as Record<string, unknown> };
    } catch (error) {
      const code = error instanceof McpError ? error.code : ERROR_CODES.InternalError;
      reply = { jsonrpc: "2.0", id, error: { code, message: error instanceof Error ? error.message : String(error) } };
    }
    await this.#transport.sendMessage(reply).catch(() => {});
  }

  #settle(id: RequestId, answer: Answer | undefined, error?: Error): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    if (answer !== undefined) pending.resolve(answer);
    else pending.reject(error ?? new Error("no answer"));
  }

  #expire(id: RequestId, method: string): void {
    if (!this.#pending.has(id)) return;
    this.#settle(id, undefined, new McpError(ERROR_CODES.InternalError, `no answer to ${method} within ${this.#timeoutMs} ms`));
    void this.notify("notifications/cancelled", { requestId: id, reason: "timed out" } as never).catch(() => {});
  }

  #failAll(error: Error): void {
    for (const id of [...this.#pending.keys()]) this.#settle(id, undefined, error);
  }
}

function parse(text: string): JsonRpcMessage | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonRpcMessage) : undefined;
  } catch {
    return undefined;
  }
}

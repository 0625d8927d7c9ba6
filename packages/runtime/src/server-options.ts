/**
 * What `createServer` is given (its options and limits) and the handler types its methods
 * take: the server's contract with the application, apart from the server itself (server.ts).
 */
import type { ClientRequestMethod, ClientRequests, ServerCapabilities } from "./protocol.js";
import type { DISCOVER_METHOD, LISTEN_METHOD, RequestContext } from "./connection.js";
import type { DiscoverOptions } from "./discover.js";
import type { RuntimeEvent } from "./hooks.js";
import type { Awaitable } from "./subscriptions/types.js";
import type { JsonSchemaConverter } from "./schema.js";
import type { ListsOptions } from "./primitives/pagination.js";
import type { SchemaValidator } from "./validation.js";
import type { InputRequiredAnswer } from "./input-required.js";
import type { TasksOptions } from "./tasks/service.js";
import type { ToolSchemaForm } from "./schema-portability/inline.js";

/**
 * One client's default share of listen slots. Sized with the HTTP transport's defaults so
 * that one client alone stays within the buffered-output budget: 64 streams at the
 * per-stream cap (1 MiB) is the whole 64 MiB budget (see transports/http-sse.ts).
 */
export const DEFAULT_MAX_STREAMS_PER_CLIENT = 64;

export interface ServerLimits {
  /** Open listen streams across all connections; a listen beyond it is refused before any ack. Default 10000. */
  maxStreams?: number;
  /**
   * Open listen streams per client: per authenticated principal, else per peer address
   * (HTTP), else per connection (stdio). A listen beyond it is refused before any ack.
   * Default 64 (`DEFAULT_MAX_STREAMS_PER_CLIENT`).
   */
  maxStreamsPerClient?: number;
  /**
   * The last listen slots of `maxStreams`, kept for clients holding fewer than four streams,
   * so that a new client is served while many others hold their shares (slots.ts). Default
   * a twentieth of `maxStreams` (500).
   */
  streamHeadroom?: number;
  /**
   * What one listen stream may keep of its request (its `notifications` filter and `_meta`,
   * as JSON text); a larger listen is refused with -32602 before any ack. Default 64 KiB.
   */
  maxListenRequestBytes?: number;
  /** What all open listen streams may keep of their requests together; beyond, a listen is refused. Default 64 MiB. */
  maxTotalListenBytes?: number;
  /** Messages waiting in one worker's mailbox (see the mailbox policy in subscriptions/stream.ts). Default 1000. */
  mailboxSize?: number;
  /**
   * Input-required request states remembered as used, each until it expires (10 minutes after
   * it was sealed), so that none opens twice; at the limit a retry carrying a state is refused
   * with -32603 until some expire. Default 100,000 (`DEFAULT_MAX_USED_STATES`).
   */
  maxUsedRequestStates?: number;
}

/** What one listen stream, and all together, may keep of their requests (see ServerLimits). */
export const DEFAULT_MAX_LISTEN_REQUEST_BYTES = 64 * 1024;
export const DEFAULT_MAX_TOTAL_LISTEN_BYTES = 64 * 1024 * 1024;

/**
 * The options of the core server (server.ts). The main entry's `ServerOptions`
 * (create-server.ts) adds `legacy`, the initialize era's.
 */
export interface CoreServerOptions {
  name: string;
  version: string;
  title?: string;
  instructions?: string;
  /** Protocol versions accepted in request `_meta`; default: the generated revision only. */
  supportedVersions?: readonly string[];
  limits?: ServerLimits;
  discover?: DiscoverOptions;
  /** Checks tool arguments and results against their JSON Schemas (see validation.ts); without one those are not checked (Standard Schemas check themselves). */
  validator?: SchemaValidator;
  /** Lists a Standard Schema that does not convert itself to JSON Schema (valibot: `toJsonSchema` from @valibot/to-json-schema). */
  toJsonSchema?: JsonSchemaConverter;
  /**
   * How `tools/list` shows each tool's schemas: as given (the default), or "portable", with
   * local `$ref`s inlined and `$defs` dropped, for clients whose models take no references
   * (schema-portability/inline.ts; a recursive schema is listed as given). Arguments are
   * checked against the schema as given either way.
   */
  toolSchemas?: ToolSchemaForm;
  /** The key that seals input-required request state; default MCP_STATE_KEY, else one per process. */
  stateKey?: string | Uint8Array;
  /** Page size and cache hints per list (tools, resources, resourceTemplates, prompts). */
  lists?: ListsOptions;
  /** Capabilities to advertise beyond those folded from handlers (e.g. `extensions`). */
  capabilities?: ServerCapabilities;
  /**
   * `logging` is advertised once the server has a request handler, since each can send log
   * messages (`context.sendLog`); `false` for a server whose handlers never log.
   */
  logging?: boolean;
  /**
   * The tasks extension (when the revision was generated with it): where tasks live and their
   * bounds. A tool opts in by answering `runAsTask(work)`.
   */
  tasks?: TasksOptions;
  /** Stream lifecycle and failure reports; they never reach the client. */
  onEvent?(event: RuntimeEvent): void;
  /**
   * OpenTelemetry spans for every request and listen stream (see tracing.ts), through the
   * global tracer provider, whenever `@opentelemetry/api` is installed; `false` turns them off.
   */
  tracing?: boolean;
}

export interface CloseOptions {
  /** How long requests still running may take to be answered before their transports close. Default 0. */
  graceMs?: number;
}

/** The methods the runtime answers itself. */
type RuntimeMethod = typeof DISCOVER_METHOD | typeof LISTEN_METHOD;
export type HandledMethod = Exclude<ClientRequestMethod, RuntimeMethod>;
type ResultOf<M extends ClientRequestMethod> = ClientRequests[M]["result"];
/**
 * Methods whose params carry `inputResponses` and `requestState`: the schema lets them answer
 * input_required (read from the map, not listed). tasks/update carries answers but no state:
 * it delivers input to a task, it is never retried.
 */
export type InputRequiredMethod = {
  [M in ClientRequestMethod]: "inputResponses" | "requestState" extends keyof ClientRequests[M]["params"] ? M : never;
}[ClientRequestMethod];
/** A handler's result; `resultType` may be left out (the runtime adds "complete"). */
export type HandlerResult<M extends ClientRequestMethod> =
  (Omit<ResultOf<M>, "resultType"> & { resultType?: string }) | (M extends InputRequiredMethod ? InputRequiredAnswer : never);
export type RequestHandler<M extends ClientRequestMethod> = (params: ClientRequests[M]["params"], context: RequestContext) => Awaitable<HandlerResult<M>>;

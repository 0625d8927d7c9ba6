/** The runtime's public surface (see ARCHITECTURE.md, "Runtime"). */
export { createServer, Server } from "./server.js";
export type { HandledMethod, HandlerResult, InputRequiredMethod, RequestHandler, ServerLimits, ServerOptions } from "./server.js";
export type { RequestContext } from "./connection.js";
export { LOG_LEVEL_SEVERITY } from "./request-notifications.js";
export type { LogMessage, ProgressUpdate, RequestRefusalReason, RequestSendResult } from "./request-notifications.js";
export type { DiscoverOptions } from "./discover.js";
export type { LegacyOptions } from "./legacy/era.js";
export { MAX_INPUT_ROUNDS } from "./legacy/input-rounds.js";
export { ToolOutputError } from "./tools.js";
export type { RegistrySettings, ToolAnswer, ToolRunner } from "./tools.js";
export { bindingOf, inputRequest, RequestStateSealer, STATE_TTL_MS } from "./input-required.js";
export type { InputMethod, InputRequiredAnswer, InputResultOf, InputRound } from "./input-required.js";
export { ajvSchemaValidator } from "./validation.js";
export { runAsTask, TaskService, TaskStart } from "./tasks/service.js";
export type { RunAsTaskOptions, TaskContext, TaskOutcome, TasksOptions, TaskWork } from "./tasks/service.js";
export { DEFAULT_TASK_LIMITS, EXPIRED_GRACE_MS, MemoryTaskStore, TaskStoreFullError } from "./tasks/store.js";
export type { StoredTask, TaskLimits, TaskStatusName, TaskStore } from "./tasks/store.js";
export { TASKS_AVAILABLE, TASKS_EXTENSION } from "./tasks/shapes.js";
// EXTENSIONS itself is the generated capabilities.ts's; a project re-exports both modules.
export { declaresExtension } from "./extensions.js";
export type { ExtensionFacts } from "./extensions.js";
export { checkParamHeaders, readParamHeaders } from "./transports/param-headers.js";
export type { ParamHeader, ParamHeaderLookup } from "./transports/param-headers.js";
export type { AjvLike, AjvValidateFunction, CompiledSchema, SchemaValidator, ValidationResult } from "./validation.js";
export { UriTemplate } from "./primitives/uri-template.js";
export type { TemplateVariables } from "./primitives/uri-template.js";
export type { CacheHints, CacheScope, ListSettings, ListsOptions } from "./primitives/pagination.js";
export type { Completer, Completers, CompletionContext } from "./primitives/completion.js";
export type { PromptArguments, PromptDefinition, PromptGetter, PromptOptions, PromptResult } from "./primitives/prompts.js";
export type { ResourceBody, ResourceContents, ResourceOptions, ResourceReader, TemplateOptions, TemplateReader } from "./primitives/resources.js";
export type { EventHook, RuntimeEvent, StreamEndCause } from "./hooks.js";
export { classifyMessage, errorResponse, McpError, parseMessage } from "./jsonrpc.js";
export type {
  JsonRpcErrorResponse,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcResultResponse,
  RequestId,
} from "./jsonrpc.js";
export type {
  Awaitable,
  Channel,
  MessageResult,
  OutgoingNotification,
  RefusalReason,
  SendResult,
  StopReason,
  SubscribeResult,
  SubscriptionHandler,
} from "./subscriptions/types.js";
export { stampNotification } from "./subscriptions/stream.js";
export { getTransport, registerTransport, SlowConsumerEvicted, supportsPush, TransportClosedError } from "./transport.js";
export type {
  MessageContext,
  ReceivedMessage,
  SharedText,
  Transport,
  TransportCapability,
  TransportClass,
  TransportEvent,
  TransportListener,
} from "./transport.js";
export { NdjsonTransport } from "./transports/ndjson.js";
export type { NdjsonOptions } from "./transports/ndjson.js";
export { StdioClientTransport, StdioServerTransport } from "./transports/stdio.js";
export type { StdioClientOptions, StdioServerOptions } from "./transports/stdio.js";
export { createInProcessTransportPair, createTestTransportPair, InProcessTransport, TestTransport } from "./transports/memory.js";
export type { MemoryPairOptions, TransportPair } from "./transports/memory.js";
export { InProcessEventSource } from "./events.js";
export type { EventListener, EventSource, EventTopics, Unsubscribe } from "./events.js";
export { createHttpHandler, serveHttp, HttpAuthError } from "./transports/http-server.js";
export { HttpExchange } from "./transports/http-exchange.js";
export type { ExchangeOptions, SseStreamReport } from "./transports/http-exchange.js";
// One budget shared by several HTTP handlers (`budget` option), and the constant it defaults to.
export { DEFAULT_MAX_TOTAL_BUFFERED_BYTES, SseBudget } from "./transports/sse-budget.js";
export type { ConnectableServer, HttpHandler, HttpHandlerOptions, HttpServerHandle, ServeHttpOptions } from "./transports/http-server.js";
// The same endpoint as a web-standard fetch handler (Bun, Deno, Workers, Hono), and the Express and Hono adapters.
export { toFetchHandler } from "./transports/http-fetch.js";
export type { FetchHandler, FetchHandlerOptions } from "./transports/http-fetch.js";
export { toExpressMiddleware, toHonoHandler } from "./transports/http-frameworks.js";
export type { ExpressLikeRequest, HonoLikeContext } from "./transports/http-frameworks.js";
export type { HttpEndpointOptions } from "./transports/http-core.js";
export { HttpClientTransport, HttpStreamClosedError } from "./transports/http-client.js";
// The client transport's pieces, for a client of another shape (a session-based legacy one): the bounded SSE and body readers.
export { DEFAULT_MAX_MESSAGE_BYTES, readText, sseMessages } from "./transports/http-client.js";
export type { HttpClientTransportOptions } from "./transports/http-client.js";

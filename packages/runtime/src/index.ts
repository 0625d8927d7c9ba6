/**
 * The runtime's entry for writing a server (see README.md, "Runtime entries"): the
 * server, its typed primitives, subscription handlers, input requests, tasks, events, and
 * the two ready ways to serve it (stdio and Streamable HTTP). Transports and adapters have
 * their own entry, `transports/index.ts`; tests have `testing/index.ts`.
 */
export { createServer } from "./create-server.js";
export type { ServerOptions } from "./create-server.js";
export { Server } from "./server.js";
export type { CloseOptions, HandledMethod, HandlerResult, InputRequiredMethod, RequestHandler, ServerLimits } from "./server-options.js";
export type { RequestContext } from "./connection.js";
export type { AnyMethodMiddleware, Middleware, MiddlewareContext, MiddlewareMethod, MiddlewareNext, MiddlewareResult, TaskCreation } from "./middleware.js";
export type { AnyInputMiddleware, InputMiddleware, InputMiddlewareContext, InputMiddlewareNext, InputParams } from "./input-middleware.js";
export { LOG_LEVEL_SEVERITY } from "./request-notifications.js";
export type { LogMessage, ProgressUpdate, RequestRefusalReason, RequestSendResult } from "./request-notifications.js";
export type { DiscoverOptions } from "./discover.js";
export type { LegacyOptions } from "./legacy/era.js";
export type { LegacySessionStore, SessionChange, SessionKeeping, SessionRecord, StopListening, StoredEvent } from "./legacy/session-store.js";
export { MAX_INPUT_ROUNDS } from "./legacy/input-rounds.js";
export { ToolError, ToolOutputError } from "./tools.js";
export type { ToolAnswer, ToolArguments, ToolDefinition, ToolInputSchema, ToolOutputSchema, ToolResult, ToolRunner, ToolStructured } from "./tool-schemas.js";
export type { FromJsonSchema, JsonSchemaConverter, JsonSchemaObject, StandardSchema } from "./schema.js";
// A tool's schemas with their references inlined (createServer({ toolSchemas: "portable" })).
export { MAX_INLINE_DEPTH, MAX_INLINED_NODES, portableSchema } from "./schema-portability/inline.js";
export type { ToolSchemaForm } from "./schema-portability/inline.js";
export { inputRequest } from "./input-required.js";
export type { ToolOptions } from "./tools.js";
export type { Visibility, VisibilityPredicate } from "./visibility.js";
export type { InputMethod, InputRequiredAnswer, InputResultOf, InputRound } from "./input-required.js";
export { ajvSchemaValidator, cfworkerSchemaValidator, lazySchemaValidator } from "./validation.js";
export type { AjvLike, AjvValidateFunction, CfworkerValidatorClass, CompiledSchema, SchemaValidator, ValidationResult } from "./validation.js";
export { runAsTask } from "./tasks/service.js";
export type { RunAsTaskOptions, TaskContext, TaskOutcome, TasksOptions, TaskWork } from "./tasks/service.js";
export { DEFAULT_TASK_LIMITS, MemoryTaskStore, TaskStoreFullError } from "./tasks/store.js";
export type { StoredTask, TaskLimits, TaskStatusName, TaskStore } from "./tasks/store.js";
export { TASKS_EXTENSION } from "./tasks/shapes.js";
// EXTENSIONS itself is the generated capabilities.ts's; a project re-exports both modules.
export { declaresExtension } from "./extensions.js";
export type { ExtensionFacts } from "./extensions.js";
export { UriTemplate } from "./primitives/uri-template.js";
export type { TemplateVariables } from "./primitives/uri-template.js";
export type { CacheHints, CacheScope, ListSettings, ListsOptions } from "./primitives/pagination.js";
export type { Completer, Completers, CompletionContext } from "./primitives/completion.js";
export type { PromptArguments, PromptDefinition, PromptGetter, PromptOptions, PromptResult } from "./primitives/prompts.js";
export type {
  ReaderVariables,
  ResourceBody,
  ResourceContents,
  ResourceOptions,
  ResourceReader,
  TemplateDefinition,
  TemplateOptions,
  TemplateReader,
} from "./primitives/resources.js";
export type { EventHook, RuntimeEvent, StreamEndCause } from "./hooks.js";
export { McpError } from "./jsonrpc.js";
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
export { EVENT_ID, eventIdOf, InProcessEventSource } from "./events.js";
export type { EventListener, EventSource, EventTopics, Unsubscribe } from "./events.js";
// Serving: stdio, and Streamable HTTP (a Node handler, or a listening server).
export { StdioServerTransport } from "./transports/stdio.js";
export type { StdioServerOptions } from "./transports/stdio.js";
export { createHttpHandler, HEALTH_PATH, HttpAuthError, READY_PATH, serveHttp } from "./transports/http-server.js";
export type { HttpHandler, HttpHandlerOptions, HttpServerHandle, ServeHttpOptions } from "./transports/http-server.js";
export type { SseStreamReport } from "./transports/http-exchange.js";
// One budget shared by several HTTP handlers (`budget` option), and the constant it defaults to.
export { DEFAULT_MAX_TOTAL_BUFFERED_BYTES, SseBudget } from "./transports/sse-budget.js";
// The same endpoint as a web-standard fetch handler (Bun, Deno, Workers), on the same core.
export { toFetchHandler } from "./transports/http-fetch.js";
export type { FetchHandler, FetchHandlerOptions } from "./transports/http-fetch.js";
export type { HttpEndpointOptions } from "./transports/http-core.js";
// How `trustedProxies` finds a client's address (parsed once; a bad entry throws, naming it).
export { trustProxies } from "./transports/trusted-proxies.js";
export type { ClientAddressOf } from "./transports/trusted-proxies.js";
// OAuth 2.1 resource server (auth/): transport-neutral, and its node handler wiring.
export { createResourceServer, DEFAULT_FETCH_BOUNDS, DEFAULT_KEY_LIMITS, DEFAULT_MAX_TOKEN_BYTES, ResourceServer } from "./auth/resource-server.js";
export type { AuthOutcome, AuthRequest, OAuthOptions } from "./auth/resource-server.js";
export type { AuthRejection } from "./auth/challenge.js";
export type { IntrospectionOptions } from "./auth/introspection.js";
export { DEFAULT_INTROSPECTION_LIMITS, type IntrospectionLimits } from "./auth/introspector.js";
export { DEFAULT_TOKEN_CACHE } from "./auth/token-cache.js";
export type { TokenCacheLimits } from "./auth/token-cache.js";
export type { MetadataResponse, ProtectedResourceMetadata } from "./auth/metadata.js";
export { TokenPrincipal } from "./auth/principal.js";
export type { PrincipalIdentity } from "./auth/principal.js";
export { oauthHttpOptions } from "./transports/http-oauth.js";
export type { OAuthHttpOptions, ScopedServer } from "./transports/http-oauth.js";

/**
 * The client entry (not re-exported by `runtime/index.ts`, so a server loads none of it):
 * a typed client on the runtime's own transports, both eras negotiated. A client file
 * `mcp-gen client` generates imports it and adds a server's tools, typed.
 */
export { connectClient } from "./connect.js";
export type { ClientTarget, ConnectOptions, HttpTarget, InProcessTarget, StdioTarget } from "./connect.js";
export { DEFAULT_CLIENT_INFO, DEFAULT_TIMEOUT_MS, McpClient } from "./client.js";
export type { ClientOptions, ClientParams, ClientParamsArgs, ClientResult, Era, KnownErrorCode, ServerIdentity } from "./client.js";
export type { InputHandlers } from "./input.js";
export { DEFAULT_MAX_LIST_ITEMS, DEFAULT_MAX_LIST_PAGES, ListLimitError } from "./pages.js";
export type { ListBounds } from "./pages.js";
export { INITIALIZE_VERSIONS, negotiate } from "./negotiate.js";
export type { EraChoice } from "./negotiate.js";
export { bindTools, ToolDirectory } from "./tools.js";
export type { ToolBinding, ToolCallResult, ToolHeaderTable, ToolMap, ToolTypes } from "./tools.js";
export { McpError } from "../jsonrpc.js";
export { DISCOVER_REFUSAL_CODES, DISCOVER_REFUSAL_STATUSES, refusesDiscover } from "./refusal.js";
export type { DiscoverFailure } from "./refusal.js";
export { HttpClientTransport, HttpErrorAnswer, HttpStatusError, HttpStreamClosedError, httpStatusOf } from "../transports/http-client.js";
export { HttpRedirectError } from "../transports/http-redirects.js";
export type { ParamHeader } from "../transports/param-headers.js";

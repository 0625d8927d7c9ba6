/**
 * The runtime's entry for a server of the 2026-07-28 revision alone (see README.md,
 * "Runtime entries"): the same server as the main entry's, built without the initialize era,
 * so nothing of legacy/ is loaded. An `initialize` is answered with the error naming the
 * versions it speaks, as with `legacy: false`. Everything else a server uses comes from the
 * main entry as types (`import type` loads nothing) or from the transports entry.
 */
export { createServer } from "./server.js";
export type { CoreServerOptions } from "./server-options.js";
export { StdioServerTransport } from "./transports/stdio.js";
export { createHttpHandler, serveHttp } from "./transports/http-server.js";
export { toFetchHandler } from "./transports/http-fetch.js";

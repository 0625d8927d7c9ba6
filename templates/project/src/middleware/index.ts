import type { AppEvents } from "../events.js";
import type { EventSource, Server } from "../mcp.js";

/** Adds middleware to the server (`server.use`); `events` is the application's event source. */
export type MiddlewareRegistration = (server: Server, events: EventSource<AppEvents>) => void;

/** Every middleware module the server registers (src/server.ts), in this order: the first runs outermost. */
export const middleware: MiddlewareRegistration[] = [
  // `npx mcp-gen middleware <Name>` adds an entry at the end; edit the list by hand as well.
];

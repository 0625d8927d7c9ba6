import { InProcessEventSource, type EventSource } from "./mcp.js";

/**
 * Every topic the application publishes on, with its payload. Handlers subscribe to
 * these in `subscribe`; tools and other code publish when something changes. Each handler
 * `mcp-gen handler` adds brings its own topics (`& AuditEvents`); add yours in the braces.
 */
export type AppEvents = {};

/** An in-process event source: what tests use, and the server too unless it scales out. */
export function createEventSource(): EventSource<AppEvents> {
  return new InProcessEventSource<AppEvents>();
}

/**
 * The event source the server runs with (src/main.ts): in-process, or Redis pub/sub to share
 * events between server processes (`npx mcp-gen handler <Name> --event-source redis|memory`).
 */
export async function openEventSource(): Promise<EventSource<AppEvents>> {
  return createEventSource();
}

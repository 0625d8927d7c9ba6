import { InProcessEventSource, type EventSource } from "./generated/v2607/runtime/index.js";

/**
 * Every topic the application publishes on, with its payload. Handlers subscribe to
 * these in `subscribe`; tools and other code publish when something changes.
 */
export type AppEvents = {
  /** The tool list changed. */
  tools: { reason: string };
};

/** The application's event source: in-process here; swap in a shared broker to scale out. */
export function createEventSource(): EventSource<AppEvents> {
  return new InProcessEventSource<AppEvents>();
}

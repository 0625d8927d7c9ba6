import type { AppEvents } from "../events.js";
import type { EventSource, SubscriptionHandler } from "../mcp.js";

/** Makes one subscription handler, given the application's event source. */
export type HandlerFactory = (events: EventSource<AppEvents>) => SubscriptionHandler<unknown>;

/** Every subscription handler the server registers (src/server.ts), in this order. */
export const handlers: HandlerFactory[] = [
  // `npx mcp-gen handler <Name>` adds an entry at the end; edit the list by hand as well.
];

import type { AppEvents } from "../events.js";
import type { EventSource, Server } from "../mcp.js";
import { addAboutResource } from "./about.js";
import { addGreetingResource } from "./greeting.js";

/** Adds one resource or resource template to the server; `events` is the application's event source. */
export type ResourceRegistration = (server: Server, events: EventSource<AppEvents>) => void;

/** Every resource module the server registers (src/server.ts), in this order. */
export const resources: ResourceRegistration[] = [
  // `npx mcp-gen resource <Name>` adds an entry at the end; edit the list by hand as well.
  addAboutResource,
  addGreetingResource,
];

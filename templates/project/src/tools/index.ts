import type { AppEvents } from "../events.js";
import type { EventSource, Server } from "../mcp.js";
import { addAskNameTool } from "./ask-name.js";
import { addToggleGreetTool } from "./toggle-greet.js";

/** Adds one tool (or several) to the server; `events` is the application's event source. */
export type ToolRegistration = (server: Server, events: EventSource<AppEvents>) => void;

/** Every tool module the server registers (src/server.ts), in this order. */
export const tools: ToolRegistration[] = [
  // `npx mcp-gen tool <Name>` adds an entry at the end; edit the list by hand as well.
  addToggleGreetTool,
  addAskNameTool,
];

import type { AppEvents } from "../events.js";
import type { EventSource, Server } from "../mcp.js";
import { addWriteGreetingPrompt } from "./write-greeting.js";

/** Adds one prompt to the server; `events` is the application's event source. */
export type PromptRegistration = (server: Server, events: EventSource<AppEvents>) => void;

/** Every prompt module the server registers (src/server.ts), in this order. */
export const prompts: PromptRegistration[] = [
  // `npx mcp-gen prompt <Name>` adds an entry at the end; edit the list by hand as well.
  addWriteGreetingPrompt,
];

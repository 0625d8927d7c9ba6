/**
 * The main entry's `createServer` (index.ts): the core server (server.ts) with the initialize
 * era (legacy/initialize-era.ts), so clients that open with `initialize` are served on the same
 * handlers by default. This file is the wiring: the core never imports legacy/, and a server
 * made by the no-era entry (modern.ts) loads none of it.
 */
import { Server } from "./server.js";
import type { CoreServerOptions } from "./server-options.js";
import type { LegacyOptions } from "./legacy/era.js";
import { initializeEra, type InitializeEra } from "./legacy/initialize-era.js";

export interface ServerOptions extends CoreServerOptions {
  /**
   * Clients that open with `initialize` (2025-11-25): served by default on the same
   * handlers, with these limits; `false` makes a modern-only server (it answers
   * `initialize` with the error naming the versions it speaks).
   */
  legacy?: LegacyOptions | false;
}

export function createServer(options: ServerOptions): Server<InitializeEra> {
  return new Server(options, initializeEra(options.legacy));
}

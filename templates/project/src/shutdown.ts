import type { Server } from "./mcp.js";

export interface ShutdownOptions {
  /** Stops taking new connections (an HTTP listener, say) before the streams end. */
  stopAccepting?: () => void;
  /** Releases what is left once every stream has ended (idle connections, say). */
  afterClose?: () => Promise<void>;
  /** How long closing may take before the process exits anyway (with code 1). */
  timeoutMs?: number;
}

/**
 * Graceful shutdown on SIGTERM and SIGINT: stop accepting, end every open listen stream
 * with its `complete` result (server.close()), then exit 0. A second signal, or a close
 * that takes longer than the timeout, exits at once with code 1.
 */
export function installGracefulShutdown(
  server: Server,
  options: ShutdownOptions = {},
): (reason: string) => void {
  let closing = false;
  const shutdown = (reason: string): void => {
    if (closing) {
      process.exit(1);
    }
    closing = true;
    console.error(`shutting down (${reason})`);
    setTimeout(() => {
      console.error(`shutdown took longer than ${options.timeoutMs ?? 5000} ms; exiting`);
      process.exit(1);
    }, options.timeoutMs ?? 5000).unref();
    void (async () => {
      options.stopAccepting?.();
      await server.close();
      await options.afterClose?.();
    })().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("shutdown failed:", error);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  return shutdown;
}

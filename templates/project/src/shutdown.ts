import type { Server } from "./mcp.js";

export interface ShutdownOptions {
  /** First step, at the signal: stop being ready (HTTP: /readyz answers 503) while still serving. */
  notReady?: () => void;
  /** How long the server goes on serving after `notReady`, so that balancers move work away. Default 0. */
  drainDelayMs?: number;
  /** Stops taking new connections (an HTTP listener, say) before the streams end. */
  stopAccepting?: () => void;
  /** How long requests still running may take to be answered once accepting stopped. Default 5000. */
  graceMs?: number;
  /** Releases what is left once every stream has ended (idle connections, the broker, say). */
  afterClose?: () => Promise<void>;
}

/** Time past the delay and the grace that closing may take before the process exits anyway (code 1). */
const CLOSE_MARGIN_MS = 5000;

/**
 * Graceful shutdown on SIGTERM and SIGINT, one path for every reason: stop being ready, keep
 * serving for the drain delay, stop accepting, end every open listen stream with its
 * `complete` result and let running requests finish within the grace (server.close()), then
 * exit 0. A second signal, or a close that overruns, exits at once with code 1.
 */
export function installGracefulShutdown(
  server: Server,
  options: ShutdownOptions = {},
): (reason: string) => void {
  const drainDelayMs = options.drainDelayMs ?? 0;
  const graceMs = options.graceMs ?? 5000;
  let closing = false;
  const shutdown = (reason: string): void => {
    if (closing) process.exit(1);
    closing = true;
    const boundMs = drainDelayMs + graceMs + CLOSE_MARGIN_MS;
    console.error(`shutting down (${reason})`);
    setTimeout(() => {
      console.error(`shutdown took longer than ${boundMs} ms; exiting`);
      process.exit(1);
    }, boundMs).unref();
    void (async () => {
      options.notReady?.();
      if (drainDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, drainDelayMs));
      options.stopAccepting?.();
      await server.close({ graceMs });
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

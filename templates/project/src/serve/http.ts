import { serveHttp, type Server } from "../mcp.js";
import { installGracefulShutdown } from "../shutdown.js";
import { millisecondsFromEnv, StartupError } from "../startup.js";

export interface HttpServeOptions {
  /** Whether this process can take work now (false while its broker is out of reach); read by GET /readyz. */
  ready?: () => boolean;
  /** Releases what the server used (the broker's connections) once it has closed. */
  release?: () => Promise<void>;
}

/**
 * Serves Streamable HTTP on HOST:PORT (default 127.0.0.1:3000), endpoint /mcp, with GET
 * /healthz (200 while the process lives) and GET /readyz (200 while it takes work). On
 * SIGTERM /readyz turns 503 at once and serving goes on for SHUTDOWN_DELAY_MS, so that a
 * balancer checking /readyz stops sending work here; then new connections are refused, open
 * listen streams end with their complete result, requests still running get SHUTDOWN_GRACE_MS
 * to be answered, and the process exits.
 */
export async function serveHttpFromEnv(
  server: Server,
  options: HttpServeOptions = {},
): Promise<void> {
  const host = process.env.HOST || "127.0.0.1";
  const port = portFromEnv(process.env.PORT);
  const drainDelayMs = millisecondsFromEnv("SHUTDOWN_DELAY_MS", 5000);
  const graceMs = millisecondsFromEnv("SHUTDOWN_GRACE_MS", 10_000);
  const handle = await serveHttp(server, {
    host,
    port,
    ...(options.ready ? { ready: options.ready } : {}),
  }).catch((error: unknown) => {
    throw listenFailure(error, host, port) ?? error;
  });
  installGracefulShutdown(server, {
    notReady: () => handle.drain(),
    drainDelayMs,
    stopAccepting: () => handle.httpServer.close(),
    graceMs,
    afterClose: async () => {
      await handle.close();
      await options.release?.();
    },
  });
  console.error(`serving MCP on ${handle.url}`);
}

function portFromEnv(value: string | undefined): number {
  if (value === undefined || value === "") return 3000;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw new StartupError(
      `PORT=${JSON.stringify(value)} is not a port number: set PORT to one from 1 to 65535, or unset it for 3000`,
    );
  }
  return port;
}

/** The one-line explanation for a listen error someone can fix by changing PORT or HOST. */
function listenFailure(error: unknown, host: string, port: number): StartupError | undefined {
  const where = `${host}:${port}`;
  switch ((error as NodeJS.ErrnoException).code) {
    case "EADDRINUSE":
      return new StartupError(
        `${where} is already in use: stop what listens there, or set PORT to another port`,
      );
    case "EACCES":
      return new StartupError(`no permission to listen on ${where}: set PORT to a port above 1023`);
    case "EADDRNOTAVAIL":
      return new StartupError(
        `HOST=${host} is not an address of this machine: set HOST to one, e.g. 127.0.0.1`,
      );
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return new StartupError(
        `HOST=${JSON.stringify(host)} does not resolve: set HOST to an IP address or a known host name`,
      );
    default:
      return undefined;
  }
}

import { serveHttp, type Server } from "../generated/v2607/runtime/index.js";
import { installGracefulShutdown } from "../shutdown.js";

/** Serves Streamable HTTP on HOST:PORT (default 127.0.0.1:3000), endpoint /mcp. */
export async function serveHttpFromEnv(server: Server): Promise<void> {
  const host = process.env.HOST || "127.0.0.1";
  const port = Number(process.env.PORT || 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be a port number, not ${JSON.stringify(process.env.PORT)}`);
  }
  const handle = await serveHttp(server, { host, port });
  installGracefulShutdown(server, {
    // Refuse new connections at once; open listen streams end with server.close().
    stopAccepting: () => handle.httpServer.close(),
    afterClose: () => handle.close(),
  });
  console.error(`serving MCP on ${handle.url}`);
}

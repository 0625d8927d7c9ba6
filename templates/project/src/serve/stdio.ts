import { StdioServerTransport, type Server } from "../mcp.js";
import { installGracefulShutdown } from "../shutdown.js";

/** Serves one client on this process's stdin/stdout; the client closing stdin ends it. */
export async function serveStdio(server: Server): Promise<void> {
  const shutdown = installGracefulShutdown(server);
  await server.connect(new StdioServerTransport());
  process.stdin.once("end", () => shutdown("stdin closed"));
  // stdout carries the protocol: everything for people goes to stderr.
  console.error("serving MCP over stdio");
}

/** A server with one tool for everyone and one shown only to a caller holding mcp:admin (`visibility: { byScopes: true }`). */
import { createServer, type Server } from "../../packages/runtime/src/index.js";

export function createVisibilityServer(): Server {
  const server = createServer({ name: "visibility", version: "1.0.0" });
  const empty = { type: "object" } as const;
  server.addTool({ name: "open_tool", inputSchema: empty }, () => ({ content: [] }));
  server.addTool({ name: "admin_reset", inputSchema: empty }, () => ({ content: [] }), { scopes: ["mcp:admin"], visibility: { byScopes: true } });
  return server;
}

/**
 * The server as a web-standard fetch handler, for runtimes other than Node's http module:
 *
 *   bun dist/src/fetch.js                    # Bun serves the default export (port 3000, PORT to change)
 *   deno serve -A --port 3000 dist/src/fetch.js
 *
 * and Cloudflare Workers, Vercel or Netlify functions (see the README). The endpoint is /mcp,
 * with the same limits and checks as `npm start`. The server is made on the first request:
 * a Worker may do no I/O (a Redis event source connecting) before one arrives.
 */
import { Validator } from "@cfworker/json-schema";
import { openEventSource } from "./events.js";
import { cfworkerSchemaValidator, toFetchHandler, type FetchHandler } from "./mcp.js";
import { createAppServer } from "./server.js";

let handler: Promise<FetchHandler> | undefined;

async function makeHandler(): Promise<FetchHandler> {
  // Schemas are interpreted, not compiled to code as Ajv does: Workers forbid generating code.
  const validator = cfworkerSchemaValidator(Validator);
  const server = createAppServer(await openEventSource(), { validator });
  return toFetchHandler(server, { path: "/mcp" });
}

/** Bun and Deno pass their server (or connection info) second: the handler reads the client address from it. */
export async function fetch(request: Request, context?: unknown): Promise<Response> {
  handler ??= makeHandler();
  return (await handler)(request, context);
}

// Bun serves the default export on these (Deno and Workers take the address from their own settings).
const env =
  (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
export default { fetch, hostname: env["HOST"] || "127.0.0.1", port: Number(env["PORT"] || 3000) };

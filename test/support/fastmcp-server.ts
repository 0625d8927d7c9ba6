/**
 * A real FastMCP (TypeScript, 4.x) server on 127.0.0.1: the initialize-era server a new
 * user most often meets. It refuses `server/discover` its own way (HTTP 400 with a
 * JSON-RPC -32000 that answers the request), and, with `authenticate`, an unknown caller
 * with 401 and a -32000 as well.
 */
import { FastMCP } from "fastmcp";
import { z } from "zod";
import { freePort } from "./ports.js";

export interface FastMcpHandle {
  readonly url: string;
  stop(): Promise<void>;
}

export interface FastMcpOptions {
  /** Refuse every caller whose `authorization` header is not this one. */
  readonly requiredAuthorization?: string;
}

const quiet = { debug() {}, error() {}, info() {}, log() {}, warn() {} };

/** Starts FastMCP over httpStream with one tool, `add` (a + b as text); the caller must `stop()` it. */
export async function startFastMcp(options: FastMcpOptions = {}): Promise<FastMcpHandle> {
  const required = options.requiredAuthorization;
  const server = new FastMCP({
    name: "fastmcp-adder",
    version: "4.0.0",
    logger: quiet,
    ...(required === undefined
      ? {}
      : {
          authenticate: async (request: { headers: Record<string, string | string[] | undefined> }) => {
            if (request.headers["authorization"] !== required) throw new Response(null, { status: 401, statusText: "Unauthorized" });
            return {};
          },
        }),
  });
  server.addTool({
    name: "add",
    description: "Adds two numbers",
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: async ({ a, b }) => String(a + b),
  });
  const port = await freePort();
  await server.start({ transportType: "httpStream", httpStream: { port, host: "127.0.0.1", endpoint: "/mcp" } });
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => server.stop() };
}

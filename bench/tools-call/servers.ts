/**
 * One tools/call server per process for the side-by-side bench (`run.ts` forks this file
 * once per kind), all over Streamable HTTP on 127.0.0.1 with the tool from tool.ts:
 * - `runtime`: createServer with the Ajv 2020 validator, behind serveHttp;
 * - `runtime-unvalidated`: the same without a validator (the cost of validation);
 * - `runtime-middleware`: `runtime` with one pass-through middleware on every method (the cost of the chain);
 * - `sdk`: the official SDK v2, createMcpHandler + McpServer.registerTool with the same JSON
 *   Schemas through its fromJsonSchema (Ajv as well), one server per request as the SDK
 *   documents, behind the node:http adapter the HTTP bench uses.
 * Reports its port over IPC.
 */
import { createServer as createNodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ajvSchemaValidator, createServer } from "../../packages/runtime/src/index.js";
import { serveHttp } from "../../packages/runtime/src/transports/http-server.js";
import { serveFetch } from "../http/serve-fetch.js";
import { answer, INPUT_SCHEMA, OUTPUT_SCHEMA, TOOL_NAME } from "./tool.js";

export type Kind = "runtime" | "runtime-unvalidated" | "runtime-middleware" | "sdk";

async function startRuntime(validated: boolean, passThrough = false): Promise<number> {
  const validator = validated ? ajvSchemaValidator(new Ajv2020({ strict: false })) : undefined;
  const server = createServer({ name: "bench-runtime", version: "1.0.0", validator });
  server.addTool({ name: TOOL_NAME, inputSchema: INPUT_SCHEMA, outputSchema: OUTPUT_SCHEMA }, (args) => answer(args));
  if (passThrough) server.use((_ctx, next) => next());
  const handle = await serveHttp(server, { port: 0 });
  return handle.port;
}

async function startSdk(): Promise<number> {
  const { createMcpHandler, fromJsonSchema, McpServer } = await import("@modelcontextprotocol/server");
  const inputSchema = fromJsonSchema<Record<string, unknown>>(INPUT_SCHEMA);
  const outputSchema = fromJsonSchema(OUTPUT_SCHEMA);
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: "bench-sdk", version: "1.0.0" });
      server.registerTool(TOOL_NAME, { inputSchema, outputSchema }, async (args) => answer(args));
      return server;
    },
    { legacy: "reject" },
  );
  const http = createNodeServer((req, res) => void serveFetch(handler.fetch, req, res));
  return new Promise((resolve) => http.listen(0, "127.0.0.1", () => resolve((http.address() as AddressInfo).port)));
}

const kind = process.argv[2] as Kind;
const port = kind === "sdk" ? await startSdk() : await startRuntime(kind !== "runtime-unvalidated", kind === "runtime-middleware");
process.send!({ port });
process.on("disconnect", () => process.exit(0));

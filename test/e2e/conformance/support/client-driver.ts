/**
 * The program the official conformance suite runs in its `client` mode
 * (`--command "node --import tsx client-driver.ts"`, the server URL appended): a client
 * file `mcp-gen client` generated (its path in MCP_GEN_CLIENT), connected to the scenario's
 * server with the era negotiated as always, then driven through what the scenario
 * (MCP_CONFORMANCE_SCENARIO) asks a client to do, using only the client's own API. The
 * context some scenarios hand over (MCP_CONFORMANCE_CONTEXT) names the tool calls to make.
 * Exit 0 when the flow ran, 1 with the error otherwise.
 */
import { pathToFileURL } from "node:url";
import type * as Generated from "../../../../packages/runtime/src/client/index.js";

type Client = Generated.McpClient;
type Flow = (client: Client, context: Context) => Promise<void>;
interface Context {
  toolCalls?: Array<{ name: string; arguments?: Record<string, unknown> }>;
}

/** Calls every listed tool with empty arguments. */
const callListedTools: Flow = async (client) => {
  for (const tool of await client.listTools()) await client.callTool(tool.name, {});
};

const FLOWS: Record<string, Flow> = {
  initialize: async (client) => void (await client.listTools()),
  "json-schema-ref-no-deref": async (client) => void (await client.listTools()),
  tools_call: async (client) => {
    const [tool] = await client.listTools();
    if (tool !== undefined) await client.callTool(tool.name, { a: 2, b: 3 });
  },
  "request-metadata": async (client) => void (await client.listTools()),
  "sse-retry": callListedTools,
  "http-invalid-tool-headers": callListedTools,
  "elicitation-sep1034-client-defaults": callListedTools,
  "sep-2322-client-request-state": async (client) => {
    const names = (await client.listTools()).map((tool) => tool.name);
    for (const name of ["test_mrtr_echo_state", "test_mrtr_unrelated", "test_mrtr_no_state", "test_mrtr_no_result_type"]) {
      if (names.includes(name)) await client.callTool(name, {});
    }
  },
  "http-custom-headers": async (client, context) => {
    await client.listTools();
    for (const call of context.toolCalls ?? []) await client.callTool(call.name, call.arguments ?? {});
  },
  "http-standard-headers": async (client) => {
    await callListedTools(client, {});
    for (const resource of (await client.request("resources/list")).resources) await client.request("resources/read", { uri: resource.uri });
    for (const prompt of (await client.request("prompts/list")).prompts) await client.request("prompts/get", { name: prompt.name });
  },
  "json-schema-2020-12-preservation": async (client) => {
    const focal = (await client.listTools()).find((tool) => tool.name === "json_schema_2020_12_tool");
    if (focal === undefined) throw new Error("the scenario lists no json_schema_2020_12_tool");
    await client.callTool("json_schema_echo", { schema: focal.inputSchema });
  },
};

async function main(): Promise<void> {
  const scenario = process.env["MCP_CONFORMANCE_SCENARIO"] ?? "";
  const url = process.argv[2];
  const file = process.env["MCP_GEN_CLIENT"];
  const flow = FLOWS[scenario];
  if (url === undefined || file === undefined || flow === undefined) {
    throw new Error(
      `usage: MCP_GEN_CLIENT=<client.ts> MCP_CONFORMANCE_SCENARIO=<${Object.keys(FLOWS).join("|")}> client-driver.ts <url> (got ${scenario || "no scenario"})`,
    );
  }
  const context = JSON.parse(process.env["MCP_CONFORMANCE_CONTEXT"] ?? "{}") as Context;
  const generated = (await import(pathToFileURL(file).href)) as typeof Generated;
  const client = await generated.connectClient(
    { url },
    {
      clientInfo: { name: "mcp-gen-conformance-client", version: "1.0.0" },
      timeoutMs: 20_000,
      inputHandlers: {
        // The scenarios' elicitations are confirmations; a form left empty gets the schema's defaults.
        "elicitation/create": (params) => ({
          action: "accept",
          content: "requestedSchema" in params && JSON.stringify(params.requestedSchema).includes('"confirmed"') ? { confirmed: true } : {},
        }),
        "sampling/createMessage": () => ({ role: "assistant", content: { type: "text", text: "sampled" }, model: "conformance" }),
        "roots/list": () => ({ roots: [] }),
      },
    },
  );
  try {
    await flow(client, context);
  } finally {
    await client.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

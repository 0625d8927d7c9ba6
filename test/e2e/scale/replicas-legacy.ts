/**
 * Official clients of both generations on 2025-11-25 sessions, as the replica tests drive
 * them: each counts the `notifications/tools/list_changed` it hears and answers the demo's
 * `ask_name` elicitation with a fixed name.
 */
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";

export interface LegacyClient {
  readonly name: string;
  /** list_changed notifications heard so far. */
  heard(): number;
  /** The protocol version the session negotiated. */
  version(): string | undefined;
  toolNames(): Promise<string[]>;
  /** Calls a tool; resolves with its first text block, rejecting on an error result. */
  call(tool: string): Promise<string>;
  close(): Promise<void>;
}

const answerName = { action: "accept" as const, content: { name: "Ada" } };

function text(result: Record<string, unknown>): string {
  const first = (result.content as Array<{ text?: string }> | undefined)?.[0]?.text ?? "";
  if (result.isError === true) throw new Error(`tool error: ${first}`);
  return first;
}

export async function v1Client(url: string, name: string): Promise<LegacyClient> {
  const client = new ClientV1({ name, version: "1.0.0" }, { capabilities: { elicitation: {} } });
  let heard = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard++);
  client.setRequestHandler(ElicitRequestSchema, () => answerName);
  const transport = new HttpV1(new URL(url));
  await client.connect(transport);
  return {
    name,
    heard: () => heard,
    version: () => transport.protocolVersion,
    toolNames: async () => (await client.listTools()).tools.map((tool) => tool.name).sort(),
    call: async (tool) => text(await client.callTool({ name: tool, arguments: {} })),
    close: () => client.close(),
  };
}

export async function v2Client(url: string, name: string): Promise<LegacyClient> {
  // Default options (its default negotiation opens a 2025-11-25 session), plus elicitation.
  const client = new ClientV2({ name, version: "1.0.0" }, { capabilities: { elicitation: {} } });
  let heard = 0;
  client.setNotificationHandler("notifications/tools/list_changed", () => void heard++);
  client.setRequestHandler("elicitation/create", () => answerName);
  const transport = new HttpV2(new URL(url));
  await client.connect(transport);
  return {
    name,
    heard: () => heard,
    version: () => transport.protocolVersion,
    toolNames: async () => (await client.listTools()).tools.map((tool) => tool.name).sort(),
    call: async (tool) => text(await client.callTool({ name: tool, arguments: {} })),
    close: () => client.close(),
  };
}

/** Both generations, alternating, `count` in all. */
export function legacyClients(url: string, count: number, prefix: string): Promise<LegacyClient[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => (i % 2 === 0 ? v1Client : v2Client)(url, `${prefix}-${i}`)));
}

/**
 * The official MCP client, pinned to 2026-07-28, driving the sample demo: listen for tool
 * list changes, call toggle_greet, and wait for the notification on the listen stream.
 */
import { Client, type McpSubscription, type Transport } from "@modelcontextprotocol/client";

export interface DemoSession {
  client: Client;
  subscription: McpSubscription;
  /** Calls toggle_greet and resolves with its text once list_changed has arrived. */
  toggleAndAwaitListChanged(): Promise<string>;
}

export async function openDemoSession(transport: Transport): Promise<DemoSession> {
  const client = new Client({ name: "scaffold-e2e", version: "0.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const waiters: Array<() => void> = [];
  client.setNotificationHandler("notifications/tools/list_changed", () => waiters.splice(0).forEach((wake) => wake()));
  await client.connect(transport);
  const subscription = await client.listen({ toolsListChanged: true });
  return {
    client,
    subscription,
    async toggleAndAwaitListChanged() {
      const changed = new Promise<void>((resolve) => waiters.push(resolve));
      const result = await client.callTool({ name: "toggle_greet", arguments: {} });
      await changed;
      const first = (result.content as Array<{ type: string; text?: string }>)[0];
      return first?.text ?? "";
    },
  };
}

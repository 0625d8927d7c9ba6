/**
 * The official MCP client driving the sample demo: listen for tool list changes, call
 * toggle_greet, and wait for the notification on the listen stream. Pinned to 2026-07-28,
 * or in its `auto` negotiation, which probes with `server/discover` and must settle on
 * 2026-07-28 against the dual-era scaffold.
 */
import { Client, type McpSubscription, type Transport } from "@modelcontextprotocol/client";

export interface DemoSession {
  client: Client;
  subscription: McpSubscription;
  /** Calls toggle_greet and resolves with its text once list_changed has arrived. */
  toggleAndAwaitListChanged(): Promise<string>;
}

export type DemoNegotiation = "pinned" | "auto";

export async function openDemoSession(transport: Transport, negotiation: DemoNegotiation = "pinned"): Promise<DemoSession> {
  const mode = negotiation === "pinned" ? { pin: "2026-07-28" } : ("auto" as const);
  const client = new Client({ name: "scaffold-e2e", version: "0.0.0" }, { versionNegotiation: { mode } });
  const waiters: Array<() => void> = [];
  client.setNotificationHandler("notifications/tools/list_changed", () => waiters.splice(0).forEach((wake) => wake()));
  await client.connect(transport);
  const version = client.getNegotiatedProtocolVersion();
  if (version !== "2026-07-28") throw new Error(`the ${negotiation} negotiation settled on ${String(version)}, not 2026-07-28`);
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

/** What the official client saw of the scaffold's resources, prompt, completion and question. */
export interface PrimitivesSeen {
  resources: string[];
  about: unknown;
  templates: string[];
  greeting: unknown;
  prompt: unknown;
  promptCompletion: string[];
  templateCompletion: string[];
  questions: string[];
  answer: string;
}

/**
 * The official client, declaring form elicitation, against the scaffold's sample resources,
 * prompt and ask_name tool: it lists and reads, gets the prompt, completes an argument and a
 * template variable, and answers the tool's question. Pinned to 2026-07-28 the client
 * fulfils the input_required result through its elicitation handler and retries; with its
 * default negotiation it opens with `initialize` (2025-11-25) and the server sends it
 * `elicitation/create` instead. The tool is the same either way.
 */
export async function exercisePrimitives(transport: Transport, negotiation: "pinned" | "default"): Promise<{ client: Client; seen: PrimitivesSeen }> {
  const pinned = negotiation === "pinned" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {};
  const client = new Client({ name: "scaffold-primitives", version: "0.0.0" }, { capabilities: { elicitation: { form: {} } }, ...pinned });
  const questions: string[] = [];
  client.setRequestHandler("elicitation/create", async (request) => {
    questions.push(request.params.message);
    return { action: "accept", content: { name: "Ada" } };
  });
  await client.connect(transport);
  const text = (result: { content: unknown }) => (result.content as Array<{ text?: string }>)[0]?.text ?? "";
  const seen: PrimitivesSeen = {
    resources: (await client.listResources()).resources.map((resource) => resource.uri),
    about: (await client.readResource({ uri: "app://about" })).contents,
    templates: (await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate),
    greeting: (await client.readResource({ uri: "app://greetings/en" })).contents,
    prompt: (await client.getPrompt({ name: "write_greeting", arguments: { name: "Ada", style: "warm" } })).messages,
    promptCompletion: (await client.complete({ ref: { type: "ref/prompt", name: "write_greeting" }, argument: { name: "name", value: "sam" } })).completion
      .values,
    templateCompletion: (
      await client.complete({ ref: { type: "ref/resource", uri: "app://greetings/{language}" }, argument: { name: "language", value: "sam" } })
    ).completion.values,
    questions,
    answer: text(await client.callTool({ name: "ask_name", arguments: {} })),
  };
  return { client, seen };
}

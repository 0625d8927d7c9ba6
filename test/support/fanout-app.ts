/**
 * A small application on the generated runtime for scale tests and the soak: one
 * subscription handler that joins an event source per requested kind, and a `fire` tool
 * that publishes events. Which event source (in-process or Redis) is the caller's choice,
 * so the same code runs alone or as one of several processes sharing a broker.
 */
import {
  createServer,
  type Channel,
  type EventSource,
  type Server,
  type ServerLimits,
  type SubscriptionHandler,
  type Unsubscribe,
} from "../../packages/runtime/src/index.js";

/** One topic per resource URI, so an update wakes only the streams watching that resource. */
export type FanoutTopics = {
  tools: { origin: string };
  prompts: { origin: string };
  [resource: `resource:${string}`]: { origin: string; uri: string };
};

type Posted = { method: string; uri?: string };
interface StreamState {
  readonly unsubscribes: Unsubscribe[];
}

/** Joins one topic per requested kind; each event becomes a notification on this stream. */
export function fanoutHandler(events: EventSource<FanoutTopics>): SubscriptionHandler<StreamState> {
  const leave = (state: StreamState) => state.unsubscribes.forEach((unsubscribe) => unsubscribe());
  return {
    async subscribe(filter, channel: Channel) {
      const unsubscribes: Unsubscribe[] = [];
      if (filter.toolsListChanged) {
        unsubscribes.push(events.subscribe("tools", () => channel.post({ method: "notifications/tools/list_changed" })));
      }
      if (filter.promptsListChanged) {
        unsubscribes.push(events.subscribe("prompts", () => channel.post({ method: "notifications/prompts/list_changed" })));
      }
      for (const uri of new Set(filter.resourceSubscriptions ?? [])) {
        unsubscribes.push(events.subscribe(`resource:${uri}`, () => channel.post({ method: "notifications/resources/updated", uri })));
      }
      // With a broker, the ack must not go out before the broker can deliver to this stream.
      await events.whenSubscribed?.();
      return { stream: { unsubscribes } };
    },
    handleMessage(message, channel, state) {
      const { method, uri } = message as Posted;
      channel.sendNotification(uri === undefined ? { method } : { method, params: { uri } });
      return { stream: state };
    },
    handleClose(_channel, state) {
      leave(state);
    },
    subscriptionCapabilities: () => ({ toolsListChanged: true, promptsListChanged: true, resourcesUpdated: true }),
  };
}

export interface FireArguments {
  tools?: boolean;
  prompts?: boolean;
  resourceUris?: string[];
}

/** A server with the fan-out handler and a `fire` tool publishing to `events`. */
export function createFanoutServer(events: EventSource<FanoutTopics>, name: string, limits?: ServerLimits): Server {
  const server = createServer({ name, version: "1.0.0", limits });
  server.addSubscriptionHandler(fanoutHandler(events));
  server.addTool(
    {
      name: "fire",
      description: "Publishes change events: the tool and prompt lists, and updates of the given resources",
      inputSchema: {
        type: "object",
        properties: {
          tools: { type: "boolean" },
          prompts: { type: "boolean" },
          resourceUris: { type: "array", items: { type: "string" } },
        },
      },
    },
    async (args) => {
      const { tools = true, prompts = true, resourceUris = [] } = (args ?? {}) as FireArguments;
      const published: Promise<void>[] = [];
      if (tools) published.push(events.publish("tools", { origin: name }));
      if (prompts) published.push(events.publish("prompts", { origin: name }));
      for (const uri of resourceUris) published.push(events.publish(`resource:${uri}`, { origin: name, uri }));
      try {
        await Promise.all(published);
      } catch (error) {
        // The caller is told why (a broker away for now), as the scaffold's toggle_greet tells it.
        return { isError: true, content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }] };
      }
      return { content: [{ type: "text", text: `${name} fired ${published.length} events` }] };
    },
  );
  return server;
}

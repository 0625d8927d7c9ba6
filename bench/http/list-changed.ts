/**
 * The runtime side of the list-changed benches: one subscription handler that joins an
 * in-process event source and turns each `tools` event into `notifications/tools/list_changed`
 * on its stream (bench/http for listen streams, bench/legacy for legacy sessions' streams).
 */
import { InProcessEventSource, type SubscriptionHandler, type Unsubscribe } from "../../packages/runtime/src/index.js";

export type ToolEvents = { tools: Record<string, never> };

export function toolsListChangedHandler(events: InProcessEventSource<ToolEvents>): SubscriptionHandler<Unsubscribe> {
  return {
    subscriptionCapabilities: () => ({ toolsListChanged: true }),
    subscribe: (_filter, channel) => ({ stream: events.subscribe("tools", () => channel.post(1)) }),
    handleMessage(_message, channel, leave) {
      channel.sendNotification({ method: "notifications/tools/list_changed" });
      return { stream: leave };
    },
    handleClose: (_channel, leave) => leave(),
  };
}

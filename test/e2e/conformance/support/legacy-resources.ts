/**
 * What the conformance server needs for the 2025-11-25 resource subscription scenarios: a
 * subscription handler that honors resource updates for any URI. Legacy clients reach it
 * through `resources/subscribe` (an implicit stream per URI); newer clients through
 * `subscriptions/listen` with `resourceSubscriptions`, the same handler.
 */
import type { Server, SubscriptionHandler } from "../../../../packages/runtime/src/index.js";

const acceptEveryUri: SubscriptionHandler<null> = {
  subscribe: () => ({ stream: null }),
  handleMessage: (_message, _channel, state) => ({ stream: state }),
  subscriptionCapabilities: () => ({ resourcesUpdated: true }),
};

export function addResourceSubscriptions(server: Server): Server {
  return server.addSubscriptionHandler(acceptEveryUri);
}

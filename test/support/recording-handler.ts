/**
 * A subscription handler for tests that records every callback and whose behaviour each
 * test chooses: what it declares, how subscribe answers, what a posted message does.
 */
import type { Channel, SendResult, StopReason, SubscribeResult, SubscriptionHandler } from "../../packages/runtime/src/index.js";
import type { SubscriptionCapabilities, SubscriptionFilter } from "../../generated/index.js";

/** What a posted test message asks the handler to do. */
export type Step =
  { send: { method: string; params?: Record<string, unknown> } } | { stop: StopReason } | { throw: string } | { garbage: true } | { wait: Promise<void> };

export interface Recording {
  calls: string[];
  filters: SubscriptionFilter[];
  sent: SendResult[];
  channels: Channel[];
  closes: number;
  /** The channel's closed flag and a send attempt, seen inside handleClose. */
  closeView?: { closed: boolean; send: SendResult };
  active: number;
  maxActive: number;
}

export interface RecordingOptions {
  declares?: SubscriptionCapabilities;
  onSubscribe?(filter: SubscriptionFilter, channel: Channel): SubscribeResult<number> | Promise<SubscribeResult<number>>;
  withoutClose?: boolean;
}

export function recordingHandler(options: RecordingOptions = {}): { handler: SubscriptionHandler<number>; log: Recording } {
  const log: Recording = { calls: [], filters: [], sent: [], channels: [], closes: 0, active: 0, maxActive: 0 };
  const handler: SubscriptionHandler<number> = {
    subscriptionCapabilities: () =>
      options.declares ?? { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourcesUpdated: true },
    async subscribe(filter, channel) {
      log.calls.push("subscribe");
      log.filters.push(filter);
      log.channels.push(channel);
      return options.onSubscribe ? options.onSubscribe(filter, channel) : { stream: 0 };
    },
    async handleMessage(message, channel, state) {
      log.calls.push(`message:${state}`);
      log.active++;
      log.maxActive = Math.max(log.maxActive, log.active);
      try {
        const step = message as Step;
        if ("wait" in step) await step.wait;
        await new Promise((resolve) => setImmediate(resolve)); // a real await between messages
        if ("send" in step) log.sent.push(channel.sendNotification(step.send));
        if ("stop" in step) return { stop: step.stop };
        if ("throw" in step) throw new Error(step.throw);
        if ("garbage" in step) return { nonsense: true } as never;
        return { stream: state + 1 };
      } finally {
        log.active--;
      }
    },
  };
  if (!options.withoutClose) {
    handler.handleClose = (channel, state) => {
      log.calls.push(`close:${state}`);
      log.closes++;
      log.closeView = { closed: channel.closed, send: channel.sendNotification({ method: "notifications/tools/list_changed" }) };
    };
  }
  return { handler, log };
}

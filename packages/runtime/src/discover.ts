/**
 * `server/discover`: what the server advertises. Capabilities are folded from the
 * registered request handlers (a `tools/...` handler means `tools`) and from every
 * subscription handler's `subscriptionCapabilities` (each true key sets the
 * `ServerCapabilities` flag the generated map names for it).
 *
 * `logging` follows one rule: it is advertised when the server has at least one request
 * handler, because every handler is given `context.sendLog` and the runtime delivers what it
 * sends at the level the client asked for (`_meta` log level, or a legacy session's
 * `logging/setLevel`). A server whose handlers never log turns it off with
 * `createServer({ logging: false })`.
 */
import type { SubscriptionCapabilities, ServerCapabilities } from "./protocol.js";
import { KINDS } from "./subscriptions/filter.js";

export interface DiscoverOptions {
  /** How long the client may cache the result; default 0 (re-fetch when needed). */
  ttlMs?: number;
  /** "private" (default) when capabilities may depend on who asks, else "public". */
  cacheScope?: "public" | "private";
}

type CapabilityTree = Record<string, Record<string, unknown>>;

const LOGGING = "logging" satisfies keyof ServerCapabilities;

/** Feature groups a request method's first path segment announces. */
const FEATURE_GROUPS: ReadonlyMap<string, string> = new Map([
  ...KINDS.flatMap((kind) => (kind.serverCapability === null ? [] : [[kind.serverCapability[0], kind.serverCapability[0]] as const])),
  // The one feature whose method prefix differs from its capability name.
  ["completion", "completions" satisfies keyof ServerCapabilities],
]);

export function foldCapabilities(
  methods: Iterable<string>,
  declarations: readonly SubscriptionCapabilities[],
  extra: ServerCapabilities = {},
  logs = true,
): ServerCapabilities {
  const tree: CapabilityTree = {};
  for (const method of methods) {
    const group = FEATURE_GROUPS.get(method.split("/")[0]!);
    if (group !== undefined) tree[group] ??= {};
    if (logs) tree[LOGGING] ??= {}; // a handler that can log (see the rule above)
  }
  for (const declared of declarations) {
    for (const kind of KINDS) {
      if ((declared as Record<string, unknown>)[kind.handlerCapability] !== true || kind.serverCapability === null) continue;
      const [group, flag] = kind.serverCapability;
      tree[group] = { ...tree[group], [flag]: true };
    }
  }
  for (const [group, value] of Object.entries(extra as Record<string, unknown>)) {
    tree[group] = { ...tree[group], ...(value as Record<string, unknown>) };
  }
  return tree as ServerCapabilities;
}

/**
 * A legacy session's implicit streams (see contract.md section 3): the same `ListenStream`
 * and workers a `subscriptions/listen` request gets, so a subscription handler written once
 * serves both eras, with a host that speaks legacy. There is no ack to send (the host keeps
 * the honored set it reports), no complete result, and notifications leave without a
 * subscription id, on the session's own output.
 */
import type { SubscriptionFilter } from "../protocol.js";
import type { EventHook } from "../hooks.js";
import {
  isObject,
  type JsonObject,
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcResultResponse,
  type RequestId,
} from "../jsonrpc.js";
import { KINDS } from "../subscriptions/filter.js";
import type { ClientKey } from "../subscriptions/slots.js";
import { ListenStream, type HandlerEntry, type StreamHost, type Teardown } from "../subscriptions/stream.js";
import { SUBSCRIPTION_ID_KEY } from "../subscriptions/worker.js";
import type { HandlerMeta } from "../meta.js";

const KIND_METHODS: ReadonlySet<string> = new Set(KINDS.map((kind) => kind.notificationMethod));

/** The legacy filter that stands for "everything listed that the server advertises": each boolean kind gated by an advertised flag. */
export function listChangedFilter(capabilities: Readonly<Record<string, unknown>>): SubscriptionFilter {
  const filter: Record<string, boolean> = {};
  for (const kind of KINDS) {
    if (kind.value !== "boolean" || kind.serverCapability === null) continue;
    const [group, flag] = kind.serverCapability;
    const advertised = capabilities[group];
    if (isObject(advertised) && advertised[flag] === true) filter[kind.filterKey] = true;
  }
  return filter as SubscriptionFilter;
}

/** The kind whose filter is a list of URIs (resource updates), when the schema has one. */
export const URI_KIND: (typeof KINDS)[number] | undefined = KINDS.find((kind) => kind.value === "uris");

/** What an implicit stream needs from its session. */
export interface ImplicitStreamOwner {
  readonly emit: EventHook;
  readonly mailboxSize: number;
  /** Writes a notification to the session's client. */
  notify(notification: JsonRpcNotification): void;
  /** The stream is over (its handlers got handleClose, or it stopped); `why`, how it ended. */
  streamEnded(stream: ImplicitStream, why?: Teardown): void;
}

export class ImplicitStream implements StreamHost {
  readonly #owner: ImplicitStreamOwner;
  readonly stream: ListenStream;
  /** What the handlers honored, once the stream is open. */
  honored: SubscriptionFilter | undefined;
  /** The error a declining handler chose, when every handler declined. */
  refusal: JsonRpcErrorObject | undefined;

  constructor(owner: ImplicitStreamOwner, id: RequestId, meta: HandlerMeta, filter: SubscriptionFilter, client: ClientKey) {
    this.#owner = owner;
    this.stream = new ListenStream(this, id, meta, filter, client);
  }

  get emit(): EventHook {
    return this.#owner.emit;
  }
  get mailboxSize(): number {
    return this.#owner.mailboxSize;
  }

  /** Offers the stream to the handlers; true when it is open. */
  async open(entries: readonly HandlerEntry[]): Promise<boolean> {
    await this.stream.open(entries);
    return this.stream.isOpen;
  }

  send(message: JsonRpcMessage): void {
    if ("method" in message) {
      if (KIND_METHODS.has(message.method)) this.#owner.notify(unstamped(message as JsonRpcNotification));
      else this.honored = (message.params?.["notifications"] ?? {}) as SubscriptionFilter; // the ack
      return;
    }
    if ("error" in message) this.refusal = message.error; // a complete result has no legacy counterpart
  }

  completeResult(id: RequestId): JsonRpcResultResponse {
    return { jsonrpc: "2.0", id, result: {} };
  }

  ended(_stream: ListenStream, why?: Teardown): void {
    this.#owner.streamEnded(this, why);
  }
}

/** The notification without the subscription id the worker stamped: legacy clients know none. */
function unstamped(notification: JsonRpcNotification): JsonRpcNotification {
  const meta = notification.params?.["_meta"];
  if (!isObject(meta) || !(SUBSCRIPTION_ID_KEY in meta)) return notification;
  const { [SUBSCRIPTION_ID_KEY]: _id, ...rest } = meta;
  const params: JsonObject = { ...notification.params };
  if (Object.keys(rest).length > 0) params["_meta"] = rest;
  else delete params["_meta"];
  return { jsonrpc: "2.0", method: notification.method, params };
}

import type { SchemaIdentity } from "./verify.js";
import type { JsonObject, NormalizedSchema } from "./normalize.js";
import { deriveMethods } from "./ir-methods.js";
import { deriveSubscriptions } from "./ir-subscriptions.js";
import { deriveErrorCodes, deriveMetaKeys } from "./ir-facts.js";

/**
 * The typed intermediate representation: everything the emitters need, derived once from the
 * normalized schema. Emitters read only this. `MapsIR` is plain data so that it can cross to a
 * worker thread.
 */
export interface SchemaIR {
  identity: SchemaIdentity;
  /** One entry per $defs key, sorted by name. */
  definitions: Array<{ name: string; schema: JsonObject }>;
  maps: MapsIR;
  /** Facts worth telling the user (fallbacks taken, parts skipped). */
  notes: string[];
}

export interface RequestEntry {
  method: string;
  requestType: string;
  /** The params definition, or params declared inline in the request (optional or not), or none. */
  params: { kind: "named"; type: string } | { kind: "inline"; required: boolean } | { kind: "none" };
  resultType: string;
}

export interface NotificationEntry {
  method: string;
  type: string;
}

export interface SubscriptionKind {
  filterKey: string;
  value: "boolean" | "uris";
  notificationMethod: string;
  notificationType: string;
  handlerCapability: string;
  serverCapability: [group: string, flag: string] | null;
}

export interface MapsIR {
  revision: string;
  clientRequests: RequestEntry[];
  serverRequests: RequestEntry[];
  clientNotifications: NotificationEntry[];
  serverNotifications: NotificationEntry[];
  /** null when the schema has no subscription stream (no SubscriptionFilter). */
  subscriptionKinds: SubscriptionKind[] | null;
  streamMethods: string[];
  errorCodes: Array<{ name: string; code: number }>;
  metaKeys: Array<{ name: string; key: string }>;
}

export function buildIR(schema: NormalizedSchema, identity: SchemaIdentity): SchemaIR {
  const notes: string[] = [];
  const methods = deriveMethods(schema.definitions, notes);
  const subscriptions = deriveSubscriptions(schema.definitions, methods, notes);
  return {
    identity,
    definitions: [...schema.definitions].map(([name, def]) => ({ name, schema: def })),
    maps: {
      revision: identity.revision,
      ...methods,
      subscriptionKinds: subscriptions?.kinds ?? null,
      streamMethods: subscriptions?.streamMethods ?? [],
      errorCodes: deriveErrorCodes(schema.definitions),
      metaKeys: deriveMetaKeys(schema.definitions),
    },
    notes,
  };
}

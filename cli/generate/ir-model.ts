import type { SchemaIdentity } from "./verify.js";
import type { JsonObject } from "./normalize.js";

/**
 * The typed intermediate representation: everything the emitters need, derived once from the
 * normalized schema (by ir.ts and its ir-*.ts helpers, which all import these types from
 * here). Emitters read only this.
 */
export interface SchemaIR {
  identity: SchemaIdentity;
  /** One entry per $defs key, sorted by name. */
  definitions: Array<{ name: string; schema: JsonObject }>;
  maps: MapsIR;
  /**
   * Whether the runtime is emitted beside the types: it serves the subscription stream, so
   * only a revision that has one (a SubscriptionFilter) gets it. Decided here, once.
   */
  withRuntime: boolean;
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

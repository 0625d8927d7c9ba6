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
  /** What a server sends, shaped as this revision defines it (ir-shapes.ts). */
  shapes: ShapesIR;
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
  /** A boolean opt-in, a list of URIs (matched against the notification's `params.uri`), or a list of ids (matched against `params[idParam]`). */
  value: "boolean" | "uris" | "ids";
  /** For an "ids" kind only: the notification params property the ids name. */
  idParam?: string;
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
  /** What each merged extension added (`--extension`); empty without extensions, and then not emitted. */
  extensions: ExtensionFacts[];
}

export interface ExtensionFacts {
  id: string;
  /** Client request methods the extension added, sorted. */
  requests: string[];
  /** Server notification methods it added, sorted. */
  notifications: string[];
  /** SubscriptionFilter properties it added, sorted. */
  filterKeys: string[];
  /** Error codes of the error definitions it added. */
  errorCodes: Array<{ name: string; code: number }>;
  /** Per added request, the params property mirrored in the Mcp-Name header (marked `x-mcp-name`). */
  nameParams: Array<{ method: string; param: string }>;
  /** Requests it defines outside the session's maps (MCP Apps: a view's requests to its host), sorted by method. */
  ownRequests: Array<{ method: string; type: string; resultType?: string }>;
  /** Notifications it defines outside the session's maps, sorted by method. */
  ownNotifications: Array<{ method: string; type: string }>;
  /** The `_meta` key its entries sit under (`ui`), when it gives core definitions any. */
  metaKey: string | undefined;
  /** Per core definition with a `_meta`, the definition of the extension's entry there (`Tool` -> `McpUiToolMeta`). */
  meta: Array<{ on: string; type: string }>;
  /** Its capability objects, by party (`Client` -> `McpUiClientCapabilities` and its flags). */
  capabilities: Array<{ party: string; type: string; flags: string[] }>;
  /** MIME types it names (`text/html;profile=mcp-app`), sorted. */
  mimeTypes: string[];
}

/**
 * A value's shape, as far as trimming an answer to what a revision defines, and checking that
 * it holds what the revision requires, need: `true` anything, taken whole; a name, that named
 * shape; `keys`, an object with these properties (and, when `open`, any others; `required`,
 * those it must hold); `items`, an array; `byType`, a union of objects told apart by their
 * `type` property.
 */
export type Shape =
  | true
  | string
  | { keys: Record<string, Shape>; open?: true; required?: string[] }
  | { items: Shape }
  | { byType: Record<string, Shape> };

export interface ShapesIR {
  /** Named shapes that are not `true`, sorted by name. */
  named: Array<{ name: string; shape: Exclude<Shape, true> }>;
  /** Each client request's result, in the maps' order. */
  results: Array<{ method: string; shape: Shape }>;
  /** Each server request's params. */
  serverRequests: Array<{ method: string; shape: Shape }>;
  /** Per server request with any, the params keys a `const` fixes (ir-shapes.ts `constKeys`). */
  serverRequestTags: Array<{ method: string; keys: string[] }>;
  /** Each server notification's params. */
  serverNotifications: Array<{ method: string; shape: Shape }>;
}

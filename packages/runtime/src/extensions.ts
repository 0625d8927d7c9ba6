/**
 * What the extensions merged into this revision add (`mcp-gen types --extension`), read from
 * the generated `EXTENSIONS` table. That table exists only when extensions were merged, so it
 * is read through the revision's namespace and falls back to none: a runtime generated from a
 * schema without extensions compiles and serves as before, with no extension surface.
 */
import * as revision from "./protocol.js";

export interface ExtensionFacts {
  /** Client request methods the extension adds. */
  readonly requests: readonly string[];
  /** Server notification methods it adds. */
  readonly notifications: readonly string[];
  /** SubscriptionFilter keys it adds. */
  readonly filterKeys: readonly string[];
  /** Its error codes, keyed by definition name. */
  readonly errorCodes: Readonly<Record<string, number>>;
  /** Per request method, the params property mirrored in the `Mcp-Name` HTTP header. */
  readonly nameParams: Readonly<Record<string, string>>;
  /** The `_meta` key under which a tool or resource carries the extension's entry (MCP Apps: `ui`). */
  readonly metaKey?: string;
  /** MIME types the extension names (MCP Apps: `text/html;profile=mcp-app`). */
  readonly mimeTypes?: readonly string[];
}

/** The generated table's own type, or `{}` when the revision has none. */
export type GeneratedExtensions = typeof revision extends { EXTENSIONS: infer E } ? E : {};

export const EXTENSIONS: Readonly<Record<string, ExtensionFacts | undefined>> =
  (revision as unknown as { EXTENSIONS?: Readonly<Record<string, ExtensionFacts>> }).EXTENSIONS ?? {};

/** Request methods whose `Mcp-Name` header mirrors a params property other than `name`/`uri`. */
export const NAME_PARAMS: ReadonlyMap<string, string> = new Map(Object.values(EXTENSIONS).flatMap((facts) => Object.entries(facts?.nameParams ?? {})));

/** Whether a request's `_meta` client capabilities declare the extension (an empty object is enough). */
export function declaresExtension(meta: Readonly<Record<string, unknown>> | undefined, id: string): boolean {
  const capabilities = meta?.[revision.META_KEYS.clientCapabilities] as { extensions?: Record<string, unknown> } | undefined;
  const settings = capabilities?.extensions?.[id];
  return typeof settings === "object" && settings !== null;
}

/**
 * The first listen filter key whose extension the request did not declare: a client that
 * did not declare an extension cannot subscribe to what only that extension adds (the tasks
 * extension's taskIds gets -32021 that way).
 */
export function undeclaredFilterKey(filter: unknown, meta: Readonly<Record<string, unknown>>): { id: string; key: string } | undefined {
  if (filter === null || typeof filter !== "object") return undefined;
  for (const [id, facts] of Object.entries(EXTENSIONS)) {
    const key = facts?.filterKeys.find((name) => (filter as Record<string, unknown>)[name] !== undefined);
    if (key !== undefined && !declaresExtension(meta, id)) return { id, key };
  }
  return undefined;
}

/** Per `_meta` key an extension gives primitives, that extension's identifier. */
const EXTENSION_OF_META_KEY: ReadonlyMap<string, string> = new Map(
  Object.entries(EXTENSIONS).flatMap(([id, facts]) => (facts?.metaKey === undefined ? [] : [[facts.metaKey, id] as const])),
);

/**
 * The extension a tool or resource belongs to: the one whose `_meta` key its `_meta` holds (a
 * tool linked to an MCP Apps view through `_meta.ui`). Such a primitive is offered only to
 * clients that declare that extension: one that did not would get a link it cannot follow.
 */
export function claimingExtension(primitiveMeta: unknown): string | undefined {
  if (EXTENSION_OF_META_KEY.size === 0 || primitiveMeta === null || typeof primitiveMeta !== "object") return undefined;
  for (const key of Object.keys(primitiveMeta)) {
    const id = EXTENSION_OF_META_KEY.get(key);
    if (id !== undefined) return id;
  }
  return undefined;
}

/** Whether a primitive claimed by `extension` (or by none) is for a request with this `_meta`. */
export function offeredTo(extension: string | undefined, requestMeta: Readonly<Record<string, unknown>> | undefined): boolean {
  return extension === undefined || declaresExtension(requestMeta, extension);
}

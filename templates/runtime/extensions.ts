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

/**
 * Cursor pagination and cache hints, shared by every list the runtime serves. A cursor is
 * opaque to the client; here it encodes the offset of the next page, so a list that
 * changes between pages may shift by the items added or removed (the client re-lists
 * when a list_changed notification arrives).
 */
import type { CacheableResult } from "../protocol.js";
import { INVALID_PARAMS, McpError } from "../jsonrpc.js";

export type CacheScope = CacheableResult["cacheScope"];

/** How long a client may reuse a result, and whether it may share it across users. */
export interface CacheHints {
  /** Milliseconds the result stays fresh; default 0 (re-fetch when needed). */
  ttlMs?: number | undefined;
  /** "private" (default): the answer may depend on who asks; "public": it does not. */
  cacheScope?: CacheScope | undefined;
}

/** One list's settings: page size and the cache hints every page carries. */
export interface ListSettings extends CacheHints {
  /** Items per page; default 100. */
  pageSize?: number;
}

/** Settings per list the runtime serves. */
export interface ListsOptions {
  tools?: ListSettings;
  resources?: ListSettings;
  resourceTemplates?: ListSettings;
  prompts?: ListSettings;
}

export const DEFAULT_PAGE_SIZE = 100;
const CURSOR_PREFIX = "o:";

/** The cache fields of a result, defaults filled in, checked so a wrong setting fails loudly at the server. */
export function cacheFields(hints: CacheHints | undefined): { ttlMs: number; cacheScope: CacheScope } {
  const ttlMs = hints?.ttlMs ?? 0;
  const cacheScope = hints?.cacheScope ?? "private";
  if (!Number.isInteger(ttlMs) || ttlMs < 0) throw new TypeError(`ttlMs must be a non-negative integer, got ${String(ttlMs)}`);
  if (cacheScope !== "private" && cacheScope !== "public") throw new TypeError(`cacheScope must be "private" or "public", got ${String(cacheScope)}`);
  return { ttlMs, cacheScope };
}

/** One page of `items` from `cursor`; `nextCursor` is present only while more remain. An unreadable cursor is -32602. */
export function paginate<T>(items: readonly T[], cursor: unknown, settings: ListSettings | undefined): { page: T[]; nextCursor?: string } {
  const pageSize = settings?.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new TypeError(`pageSize must be a positive integer, got ${String(pageSize)}`);
  const start = cursor === undefined ? 0 : readCursor(cursor);
  const end = start + pageSize;
  const page = items.slice(start, end);
  return end < items.length ? { page, nextCursor: writeCursor(end) } : { page };
}

function writeCursor(offset: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${offset}`).toString("base64url");
}

function readCursor(cursor: unknown): number {
  const text = typeof cursor === "string" ? Buffer.from(cursor, "base64url").toString() : "";
  const offset = text.startsWith(CURSOR_PREFIX) ? Number(text.slice(CURSOR_PREFIX.length)) : NaN;
  if (!Number.isSafeInteger(offset) || offset < 0 || writeCursor(offset) !== cursor) {
    throw new McpError(INVALID_PARAMS, "Invalid cursor: pass back a nextCursor this server returned, or none for the first page");
  }
  return offset;
}
